package message_test

import (
	"bytes"
	"encoding/base64"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding/japanese"
)

var update = flag.Bool("update", false, "rewrite the generated files in testdata/")

// generated are the testdata files that are easier to encode with code
// than by hand. Without -update the test checks that they are up to date.
var generated = map[string]func(t *testing.T) []byte{
	"iso-2022-jp.eml": iso2022JPMessage,
}

func TestGeneratedTestdata(t *testing.T) {
	for name, build := range generated {
		want := build(t)
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go test ./message -run TestGeneratedTestdata -update", path)
		}
	}
}

// iso2022JPMessage is a Japanese mail as Becky!, Thunderbird and most
// Japanese clients still send it: 7bit ISO-2022-JP body, and B-encoded
// ISO-2022-JP words in the header, the subject split in two words that
// each switch back to ASCII.
func iso2022JPMessage(t *testing.T) []byte {
	t.Helper()
	jis := func(s string) []byte {
		b, err := japanese.ISO2022JP.NewEncoder().Bytes([]byte(s))
		if err != nil {
			t.Fatalf("encode %q: %v", s, err)
		}
		return b
	}
	word := func(s string) string {
		return "=?ISO-2022-JP?B?" + base64.StdEncoding.EncodeToString(jis(s)) + "?="
	}
	header := strings.Join([]string{
		"From: " + word("山田太郎") + " <taro.yamada@example.co.jp>",
		"To: " + word("田中花子") + " <hanako.tanaka@example.co.jp>",
		"Subject: " + word("会議の日程") + "\r\n " + word("について"),
		"Date: Tue, 19 Mar 2024 10:30:00 +0900",
		"Message-ID: <20240319103000.4F2A1B@example.co.jp>",
		"MIME-Version: 1.0",
		"Content-Type: text/plain; charset=ISO-2022-JP",
		"Content-Transfer-Encoding: 7bit",
		"X-Mailer: Becky! ver. 2.81.04",
	}, "\r\n")
	body := jis("田中様\r\n\r\nお世話になっております。山田です。\r\n" +
		"来週の会議は水曜日の午後二時からです。\r\nよろしくお願いいたします。\r\n\r\n山田太郎\r\n")
	return append([]byte(header+"\r\n\r\n"), body...)
}
