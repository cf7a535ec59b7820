package message_test

import (
	"errors"
	"testing"

	"github.com/email-mcp/email-mcp/message"
)

func TestDecodeText(t *testing.T) {
	tests := []struct {
		name, body, enc, charset, want string
		err                            error
	}{
		{"7bit us-ascii", "hello\r\nworld", "7bit", "us-ascii", "hello\nworld", nil},
		{"8bit utf-8", "Grüße ☕", "8bit", "UTF-8", "Grüße ☕", nil},
		{"binary, no charset, utf-8 bytes", "Grüße", "binary", "", "Grüße", nil},
		{"empty encoding is 7bit", "plain", "", "", "plain", nil},
		{"base64 utf-8 with line breaks", "R3LD\r\nvMOfZQ==", "base64", "utf-8", "Grüße", nil},
		{"base64 upper case name", "aGk=", "BASE64", "", "hi", nil},
		{"quoted-printable utf-8", "caf=C3=A9 =E2=80=94 ok=\r\n!", "quoted-printable", "utf-8", "café — ok!", nil},
		{"quoted-printable lower-case hex", "caf=c3=a9", "Quoted-Printable", "utf-8", "café", nil},
		{"quoted-printable bare = kept", "a=b&c=\r\nd =ZZ", "quoted-printable", "utf-8", "a=b&cd =ZZ", nil},
		{"quoted-printable trailing blanks dropped", "end   \r\nnext", "quoted-printable", "", "end\nnext", nil},
		{"iso-8859-1 (read as windows-1252)", "caf\xe9 \x80 \x93q\x94", "8bit", "iso-8859-1", "café € “q”", nil},
		{"latin1 alias", "\xfcber", "8bit", "latin1", "über", nil},
		{"iso-8859-15 euro", "\xa4 5", "8bit", "ISO-8859-15", "€ 5", nil},
		{"windows-1252 QP", "=93final=94 =96 =8012", "quoted-printable", "windows-1252", "“final” – €12", nil},
		{"cp1252 alias quoted", "\x92", "8bit", `"cp1252"`, "’", nil},
		{"koi8-r", "\xf0\xd2\xc9\xd7\xc5\xd4", "8bit", "koi8-r", "Привет", nil},
		{"shift_jis", "\x93\xfa\x96\x7b", "8bit", "Shift_JIS", "日本", nil},
		{"iso-2022-jp", "\x1b$BF|K\\\x1b(B", "7bit", "iso-2022-jp", "日本", nil},
		{"iso-2022-jp-ms alias", "\x1b$BF|K\\\x1b(B", "7bit", "ISO-2022-JP-MS", "日本", nil},
		{"cp932 alias", "\x93\xfa\x96\x7b", "8bit", "CP932", "日本", nil},
		{"euc-kr", "\xc7\xd1\xb1\xb9", "8bit", "euc-kr", "한국", nil},
		{"gb2312 (as GBK)", "\xd6\xd0\xce\xc4", "8bit", "gb2312", "中文", nil},
		{"big5", "\xa4\xa4\xa4\xe5", "8bit", "big5", "中文", nil},
		{"utf-16le with BOM", "\xff\xfeh\x00i\x00", "binary", "utf-16", "hi", nil},
		{"utf-8 BOM stripped, beats the label", "\xef\xbb\xbfcaf\xc3\xa9", "8bit", "iso-8859-1", "café", nil},
		{"utf-16be BOM without label", "\xfe\xff\x00h\x00i", "binary", "", "hi", nil},
		{"unknown charset keeps bytes", "ok \xff", "8bit", "x-unknown", "ok \ufffd", nil},
		{"label WHATWG maps to replacement keeps bytes", "abc", "7bit", "iso-2022-kr", "abc", nil},
		{"utf-7 (unsupported) keeps bytes", "a+AKM-b", "7bit", "utf-7", "a+AKM-b", nil},
		{"invalid utf-8 replaced", "a\xc3(b", "8bit", "utf-8", "a\ufffd(b", nil},
		{"us-ascii with utf-8 bytes", "caf\xc3\xa9", "8bit", "us-ascii", "café", nil},
		{"unknown transfer encoding", "begin 644 x", "x-uuencode", "utf-8", "begin 644 x", message.ErrUnknownEncoding},
	}
	for _, tc := range tests {
		got, err := message.DecodeText([]byte(tc.body), "text/plain", map[string]string{"charset": tc.charset}, tc.enc)
		if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
			t.Errorf("%s: DecodeText(%q, %q, %q) = %q, %v; want %q, %v", tc.name, tc.body, tc.enc, tc.charset, got, err, tc.want, tc.err)
		}
	}
}

// TestDecodeTextHTMLMeta: an HTML part without a charset, or with the
// US-ASCII that IMAP servers report for one (RFC 3501 BODYSTRUCTURE
// default), is read in its <meta charset> when its bytes are not UTF-8.
func TestDecodeTextHTMLMeta(t *testing.T) {
	body := []byte("<meta charset=\"windows-1251\"><p>\xcf\xf0\xe8\xe2\xe5\xf2</p>")
	for _, params := range []map[string]string{{}, {"charset": "us-ascii"}, {"charset": "US-ASCII"}} {
		got, err := message.DecodeText(body, "text/html", params, "8bit")
		if err != nil || got != "<meta charset=\"windows-1251\"><p>Привет</p>" {
			t.Errorf("DecodeText(html, %v) = %q, %v; want it read as windows-1251", params, got, err)
		}
	}
}
