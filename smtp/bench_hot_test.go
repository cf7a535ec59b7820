package smtp_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/smtp"
)

// hotAttachments writes the three files of a typical
// send_email_with_attachments call (a 300 KB PDF, a 120 KB PNG, a 12 KB
// CSV) and returns them as attachments.
func hotAttachments(tb testing.TB) []smtp.Attachment {
	tb.Helper()
	dir := tb.TempDir()
	var out []smtp.Attachment
	for _, f := range []struct {
		name, ctype string
		size        int
	}{{"report.pdf", "application/pdf", 300 << 10}, {"chart.png", "image/png", 120 << 10}, {"data.csv", "text/csv; charset=utf-8", 12 << 10}} {
		path := filepath.Join(dir, f.name)
		data := bytes.Repeat([]byte("0123456789abcdef\x00\xff\x10\x80"), f.size/20+1)[:f.size]
		if err := os.WriteFile(path, data, 0o600); err != nil {
			tb.Fatal(err)
		}
		out = append(out, smtp.Attachment{Filename: f.name, ContentType: f.ctype, Size: int64(f.size),
			Open: func() (io.ReadCloser, error) { return os.Open(path) }})
	}
	return out
}

// hotMessage is a reply with text and HTML bodies and three attachments.
func hotMessage(tb testing.TB) *smtp.Message {
	m := testMessage()
	m.Subject = "Re: Quarterly report — figures attached"
	m.Text = strings.Repeat("Here are the figures for the quarter, as discussed on Thursday.\n", 30)
	m.HTML = "<p>" + strings.Repeat("Here are the <b>figures</b> for the quarter, as discussed on Thursday.<br>", 30) + "</p>"
	m.InReplyTo = "parent@example.com"
	m.References = []string{"root@example.com", "parent@example.com"}
	m.Attachments = hotAttachments(tb)
	return m
}

// TestHotMessage checks the message the benchmark composes.
func TestHotMessage(t *testing.T) {
	var b bytes.Buffer
	m := hotMessage(t)
	n, err := m.WriteTo(&b)
	size, serr := m.Size()
	if err != nil || serr != nil || n != size || int64(b.Len()) != n {
		t.Fatalf("WriteTo() = %d, %v; Size() = %d, %v; wrote %d bytes", n, err, size, serr, b.Len())
	}
	for _, want := range []string{"filename=report.pdf", "filename=chart.png", "filename=data.csv", "multipart/alternative"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("composed message lacks %q", want)
		}
	}
}

// BenchmarkHotComposeThreeAttachments composes a typical mail with three
// attachments (432 KB) to io.Discard, as send_email_with_attachments does
// twice (the submission and the copy in Sent).
//
//	go test ./smtp -run '^$' -bench Hot -benchmem
func BenchmarkHotComposeThreeAttachments(b *testing.B) {
	m := hotMessage(b)
	size, err := m.Size()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
