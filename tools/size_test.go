package tools_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/tools"
)

// b64Wrapped is data in base64, in lines of width characters (0: one
// line), each ended by CRLF.
func b64Wrapped(data []byte, width int) string {
	enc := base64.StdEncoding.EncodeToString(data)
	if width <= 0 {
		return enc + "\r\n"
	}
	var b strings.Builder
	for len(enc) > width {
		b.WriteString(enc[:width] + "\r\n")
		enc = enc[width:]
	}
	return b.String() + enc + "\r\n"
}

// sizeAttachment is one attachment of sizeMail: its MIME header and body.
type sizeAttachment struct {
	name, encoding, body string
	decoded              int // the decoded size
}

func sizeAttachments(n int) []sizeAttachment {
	data := func(k int) []byte {
		b := make([]byte, k)
		for i := range b {
			b[i] = byte(i*7 + k)
		}
		return b
	}
	return []sizeAttachment{
		{"b64-76.bin", "base64", b64Wrapped(data(n), 76), n},
		{"b64-76-pad1.bin", "base64", b64Wrapped(data(n+1), 76), n + 1},
		{"b64-76-pad2.bin", "base64", b64Wrapped(data(n+2), 76), n + 2},
		{"b64-64.bin", "base64", b64Wrapped(data(n), 64), n},
		{"b64-one-line.bin", "base64", b64Wrapped(data(900), 0), 900}, // SMTP lines: at most 2,000
		{"b64-spaces.bin", "base64", strings.ReplaceAll(b64Wrapped(data(n), 72), "\r\n", " \r\n"), n},
		{"qp.txt", "quoted-printable", qpBinary(n / 3), n / 3},
		{"seven.txt", "7bit", strings.Repeat("plain line\r\n", n/12), 12*(n/12) - 2}, // the last CRLF belongs to the delimiter
	}
}

// sizeMail is a mail whose attachments (sizeAttachments) sit in a
// multipart/mixed inside another, after a text body of pad bytes.
func sizeMail(subject string, atts []sizeAttachment, pad int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "From: app@example.test\r\nTo: size@sandbox.localhost\r\nSubject: %s\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"outer\"\r\n\r\n", subject)
	fmt.Fprintf(&b, "--outer\r\nContent-Type: text/plain\r\n\r\n%s\r\n", strings.Repeat("padding line of text\r\n", pad/22))
	b.WriteString("--outer\r\nContent-Type: multipart/mixed; boundary=\"inner\"\r\n\r\npreamble\r\n")
	for _, a := range atts {
		fmt.Fprintf(&b, "--inner\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=%q\r\nContent-Transfer-Encoding: %s\r\n\r\n%s\r\n",
			a.name, a.encoding, strings.TrimSuffix(a.body, "\r\n"))
	}
	b.WriteString("--inner--\r\nepilogue\r\n--outer--\r\n")
	return b.String()
}

// TestAttachmentSizesAgree: for attachments of every transfer encoding,
// base64 in several line lengths, read_email's size_bytes is what
// download_attachment saves, exactly, when the mail is within the bytes
// read_email fetches; beyond them, base64 is estimated within 2 bytes and
// quoted-printable is an upper bound.
func TestAttachmentSizesAgree(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := sandboxClient(t, env)
	for _, tc := range []struct {
		subject string
		pad     int
		exact   bool
	}{{"sizes small", 100, true}, {"sizes beyond the prefix", 1200 << 10, false}} {
		atts := sizeAttachments(3001)
		sendRaw(t, env.sandbox.SMTPAddr(), "size@sandbox.localhost", sizeMail(tc.subject, atts, tc.pad))
		m := findOne(t, e, "INBOX", tc.subject)
		var r tools.ReadResult
		e.call(t, "read_email", map[string]any{"uid": m.UID, "max_chars": 10}, &r)
		if len(r.Attachment) != len(atts) {
			t.Fatalf("%s: read_email lists %d attachments, want %d", tc.subject, len(r.Attachment), len(atts))
		}
		for i, a := range atts {
			var d tools.DownloadResult
			e.call(t, "download_attachment", map[string]any{"uid": m.UID, "attachment_index": i}, &d)
			saved, err := os.Stat(filepath.Join(env.base, d.FilePath))
			if err != nil || saved.Size() != int64(a.decoded) || d.SizeBytes != int64(a.decoded) {
				t.Fatalf("%s: download of %s: %v, file %d bytes, size_bytes %d; want %d", tc.subject, a.name, err, saved.Size(), d.SizeBytes, a.decoded)
			}
			got := r.Attachment[i].SizeBytes
			switch {
			case tc.exact || a.encoding == "7bit":
				if got != d.SizeBytes {
					t.Errorf("%s: %s (%s): read_email size_bytes %d, download_attachment %d", tc.subject, a.name, a.encoding, got, d.SizeBytes)
				}
			case a.encoding == "quoted-printable":
				if got < d.SizeBytes {
					t.Errorf("%s: %s: read_email size_bytes %d under the %d downloaded (want an upper bound)", tc.subject, a.name, got, d.SizeBytes)
				}
			case strings.HasPrefix(a.name, "b64-76"):
				if got > d.SizeBytes+2 || got < d.SizeBytes-2 {
					t.Errorf("%s: %s: read_email size_bytes %d, downloaded %d: want within 2 bytes", tc.subject, a.name, got, d.SizeBytes)
				}
			}
		}
	}
}
