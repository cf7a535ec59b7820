package imap_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/imap"
)

// readEML reads a testdata message with CRLF line ends.
func readEML(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
}

// nestedServer serves testdata/nested.eml, unread, as UID 1 of INBOX.
func nestedServer(t *testing.T) (*testServer, *imap.Client, []byte) {
	t.Helper()
	ts := newTestServer(t, modePlain, capsFull)
	raw := readEML(t, "nested.eml")
	ts.deliver(t, "INBOX", string(raw), day(2024, 7, 1))
	return ts, newClient(t, clientOptions(t, ts.Port, modePlain)), raw
}

// describe renders a structure one part a line.
func describe(p *imap.Part, lines *[]string) {
	if p == nil {
		return
	}
	*lines = append(*lines, fmt.Sprintf("%v %s %s %q %q %s %d", p.Path, p.MediaType(), p.Disposition, p.Filename, p.ID, p.Encoding, p.Size))
	for _, ch := range p.Children {
		describe(ch, lines)
	}
	describe(p.Message, lines)
}

func TestFetchMessage(t *testing.T) {
	ts, c, raw := nestedServer(t)
	ctx := context.Background()
	size := int64(len(raw))
	tests := []struct {
		prefix   int64
		n        int64
		complete bool
	}{
		{0, size, true}, {1 << 20, size, true}, {size, size, true}, {size - 1, size - 1, false}, {200, 200, false},
	}
	for _, tt := range tests {
		m, err := c.FetchMessage(ctx, "INBOX", 1, tt.prefix)
		if err != nil {
			t.Fatalf("FetchMessage(prefix %d) = %v, want nil", tt.prefix, err)
		}
		if int64(len(m.Raw)) != tt.n || m.Complete != tt.complete || !bytes.Equal(m.Raw, raw[:tt.n]) {
			t.Errorf("FetchMessage(prefix %d) = %d bytes, Complete %v; want the first %d, %v", tt.prefix, len(m.Raw), m.Complete, tt.n, tt.complete)
		}
		if m.UID != 1 || m.Size != size || m.UIDValidity == 0 || !m.InternalDate.Equal(day(2024, 7, 1)) {
			t.Errorf("FetchMessage() = UID %d, size %d, uidvalidity %d, date %v", m.UID, m.Size, m.UIDValidity, m.InternalDate)
		}
		// BODY.PEEK: \Seen is never set.
		if slices.Contains(m.Flags, `\Seen`) {
			t.Errorf("FetchMessage() flags = %q: \\Seen was set", m.Flags)
		}
	}
	st, err := ts.user.Status("INBOX", &goimap.StatusOptions{NumUnseen: true})
	if err != nil || *st.NumUnseen != 1 {
		t.Errorf("server: unseen = %v, %v after fetching; want 1", st, err)
	}
}

func TestFetchMessageStructure(t *testing.T) {
	_, c, _ := nestedServer(t)
	m, err := c.FetchMessage(context.Background(), "INBOX", 1, 100)
	if err != nil {
		t.Fatalf("FetchMessage() = %v, want nil", err)
	}
	var got []string
	describe(m.Structure, &got)
	want := []string{
		`[] multipart/mixed  "" ""  0`,
		`[1] multipart/alternative  "" ""  0`,
		`[1 1] text/plain  "" "" quoted-printable 47`,
		`[1 2] text/html  "" "" quoted-printable 74`,
		`[2] image/png inline "" "logo@example.test" base64 12`,
		`[3] application/pdf attachment "Rechnung März.pdf" "" base64 28`,
		`[4] message/rfc822 attachment "forwarded.eml" "" 7bit 0`,
		`[4] multipart/mixed  "" ""  0`,
		`[4 1] text/plain  "" "" 7bit 11`,
		`[4 2] text/csv attachment "data.csv" "" 7bit 8`,
	}
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		// the size of a message/rfc822 part depends on the server
		if strings.Contains(w, "message/") {
			g, w = g[:max(0, strings.LastIndex(g, " "))], w[:strings.LastIndex(w, " ")]
		}
		if g != w {
			t.Errorf("part %d = %s, want %s", i, g, w)
		}
	}
	var names []string
	for _, a := range m.Structure.Attachments() {
		names = append(names, fmt.Sprintf("%v:%s:%v", a.Path, a.Filename, a.IsEmbedded()))
	}
	if want := []string{"[2]::true", "[3]:Rechnung März.pdf:false", "[4]:forwarded.eml:false"}; !slices.Equal(names, want) {
		t.Errorf("Attachments() = %q, want %q", names, want)
	}
	if !m.Structure.HasAttachments() {
		t.Error("HasAttachments() = false, want true")
	}
	if p := m.Structure.Find([]int{4, 2}); p == nil || p.Params["name"] != "data.csv" {
		t.Errorf("Find([4 2]) = %+v, want data.csv", p)
	}
}

func TestFetchMissing(t *testing.T) {
	_, c, _ := nestedServer(t)
	ctx := context.Background()
	if _, err := c.FetchMessage(ctx, "INBOX", 99, 100); !errors.Is(err, imap.ErrMessageNotFound) {
		t.Errorf("FetchMessage(UID 99) = %v, want ErrMessageNotFound", err)
	}
	if _, err := c.FetchParts(ctx, "INBOX", 99, [][]int{{1}}, 10); !errors.Is(err, imap.ErrMessageNotFound) {
		t.Errorf("FetchParts(UID 99) = %v, want ErrMessageNotFound", err)
	}
	if _, err := c.StreamPart(ctx, "INBOX", 99, []int{1}, &bytes.Buffer{}); !errors.Is(err, imap.ErrMessageNotFound) {
		t.Errorf("StreamPart(UID 99) = %v, want ErrMessageNotFound", err)
	}
	if _, err := c.StreamPart(ctx, "INBOX", 1, []int{9}, &bytes.Buffer{}); !errors.Is(err, imap.ErrPartNotFound) {
		t.Errorf("StreamPart(part 9) = %v, want ErrPartNotFound", err)
	}
	if _, err := c.FetchMessage(ctx, "Nope", 1, 100); !errors.Is(err, imap.ErrFolderNotFound) {
		t.Errorf("FetchMessage(missing folder) = %v, want ErrFolderNotFound", err)
	}
	for _, err := range []error{
		func() error { _, err := c.FetchMessage(ctx, "INBOX", 0, 100); return err }(),
		func() error { _, err := c.FetchParts(ctx, "INBOX", 1, nil, 10); return err }(),
		func() error { _, err := c.FetchParts(ctx, "INBOX", 1, [][]int{{0}}, 10); return err }(),
		func() error { _, err := c.StreamPart(ctx, "INBOX", 1, nil, &bytes.Buffer{}); return err }(),
	} {
		if !errors.Is(err, imap.ErrInvalid) {
			t.Errorf("bad arguments: %v, want ErrInvalid", err)
		}
	}
	if st := c.Stats(); st.Dials != 1 || st.Discards != 0 {
		t.Errorf("Stats() = %+v, want the connection kept throughout", st)
	}
}

func TestFetchParts(t *testing.T) {
	_, c, _ := nestedServer(t)
	ctx := context.Background()
	parts := map[string][]byte{ // encoded bodies as in testdata/nested.eml
		"1 1": []byte("Hello Bob, see the attachments. Gr=C3=BC=C3=9Fe"),
		"2":   []byte("iVBORw0KGgo="),
		"3":   []byte("JVBERi0xLjQKJcOkw7zDtsOfCg=="),
		"4 2": []byte("a,b\r\n1,2"),
	}
	paths := [][]int{{1, 1}, {2}, {3}, {4, 2}}
	for _, max := range []int64{0, 1 << 20, 5} {
		got, err := c.FetchParts(ctx, "INBOX", 1, paths, max)
		if err != nil || len(got) != len(paths) {
			t.Fatalf("FetchParts(max %d) = %d parts, %v; want %d", max, len(got), err, len(paths))
		}
		for i, p := range paths {
			want := parts[strings.Trim(fmt.Sprint(p), "[]")]
			if max > 0 && int64(len(want)) > max {
				want = want[:max]
			}
			if !bytes.Equal(got[i], want) {
				t.Errorf("FetchParts(max %d) part %v = %q, want %q", max, p, got[i], want)
			}
		}
	}
	for key, want := range parts {
		var path []int
		for _, f := range strings.Fields(key) {
			path = append(path, int(f[0]-'0'))
		}
		var buf bytes.Buffer
		n, err := c.StreamPart(ctx, "INBOX", 1, path, &buf)
		if err != nil || n != int64(len(want)) || !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("StreamPart(%v) = %q, %d, %v; want %q", path, buf.Bytes(), n, err, want)
		}
	}
}

// countingWriter counts what it is given and fails after failAfter bytes
// when that is positive.
type countingWriter struct {
	n, maxWrite, writes int64
	sum                 []byte // the data, when keep
	keep                bool
	failAfter           int64
}

var errSink = errors.New("disk full")

func (w *countingWriter) Write(p []byte) (int, error) {
	if w.failAfter > 0 && w.n+int64(len(p)) > w.failAfter {
		return 0, errSink
	}
	w.n += int64(len(p))
	w.writes++
	w.maxWrite = max(w.maxWrite, int64(len(p)))
	if w.keep {
		w.sum = append(w.sum, p...)
	}
	return len(p), nil
}

// bigMessage is a message whose part 2 is body: 5 MB of base64 lines.
func bigMessage() (raw string, body []byte) {
	var b bytes.Buffer
	line := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=", 3)[:76] + "\r\n"
	for b.Len() < 5<<20 {
		b.WriteString(line)
	}
	body = bytes.TrimSuffix(b.Bytes(), []byte("\r\n"))
	raw = "From: a@example.test\r\nSubject: big\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n" +
		"--B\r\nContent-Type: text/plain\r\n\r\nsee attachment\r\n" +
		"--B\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=big.bin\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\n" + string(body) + "\r\n--B--\r\n"
	return raw, body
}

func TestStreamPartLarge(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	raw, body := bigMessage()
	uid := ts.deliver(t, "INBOX", raw, time.Now())
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	ctx := context.Background()

	w := &countingWriter{keep: true}
	n, err := c.StreamPart(ctx, "INBOX", uid, []int{2}, w)
	if err != nil || n != int64(len(body)) || !bytes.Equal(w.sum, body) {
		t.Fatalf("StreamPart() = %d, %v; want the %d encoded bytes", n, err, len(body))
	}
	// Streamed, not buffered then written: many small writes.
	if w.maxWrite > 32<<10 || w.writes < int64(len(body)/(32<<10)) {
		t.Errorf("StreamPart() wrote %d times, at most %d bytes at once; want chunks of at most 32 KiB", w.writes, w.maxWrite)
	}
	head, err := c.FetchParts(ctx, "INBOX", uid, [][]int{{2}}, 1000)
	if err != nil || !bytes.Equal(head[0], body[:1000]) {
		t.Errorf("FetchParts(max 1000) = %q…, %v; want the first 1000 bytes", head[0][:min(20, len(head[0]))], err)
	}

	// A failing writer ends the transfer; its error comes back untranslated
	// and the connection is replaced.
	failing := &countingWriter{failAfter: 100 << 10}
	_, err = c.StreamPart(ctx, "INBOX", uid, []int{2}, failing)
	if !errors.Is(err, errSink) || errors.Is(err, imap.ErrConnection) {
		t.Errorf("StreamPart(failing writer) = %v, want the writer's error only", err)
	}
	if st := c.Stats(); st.Discards != 1 {
		t.Errorf("Stats() = %+v, want the cut connection discarded", st)
	}
	var buf bytes.Buffer
	if _, err := c.StreamPart(ctx, "INBOX", uid, []int{1}, &buf); err != nil || buf.String() != "see attachment" {
		t.Errorf("StreamPart() after a failed one = %q, %v; want the text part", buf.String(), err)
	}
}
