package imap_test

import (
	"testing"

	"github.com/email-mcp/email-mcp/imap"
)

// TestPartNames: the media type and default file name of an attachment,
// as download_attachment, forward_email and the web inbox give them.
func TestPartNames(t *testing.T) {
	for _, c := range []struct {
		part       imap.Part
		typ, named string
	}{
		{imap.Part{Type: "application", Subtype: "pdf", Filename: "a.pdf"}, "application/pdf", "a.pdf"},
		{imap.Part{Type: "message", Subtype: "rfc822"}, "message/rfc822", "attachment-3.eml"},
		{imap.Part{Type: "x-evil\x1b", Subtype: "pdf"}, "application/octet-stream", "attachment-3.bin"},
		{imap.Part{Type: "image", Subtype: ""}, "application/octet-stream", "attachment-3.bin"},
		{imap.Part{Type: "application", Subtype: "x-unknown-zz"}, "application/x-unknown-zz", "attachment-3.bin"},
	} {
		if got := c.part.SafeMediaType(); got != c.typ {
			t.Errorf("SafeMediaType(%q/%q) = %q, want %q", c.part.Type, c.part.Subtype, got, c.typ)
		}
		if got := c.part.DefaultName(3); got != c.named {
			t.Errorf("DefaultName(%+v, 3) = %q, want %q", c.part, got, c.named)
		}
	}
	for s, want := range map[string]bool{"utf-8": true, "": false, "a b": false, "a;b": false, "é": false} {
		if got := imap.IsToken(s); got != want {
			t.Errorf("IsToken(%q) = %v, want %v", s, got, want)
		}
	}
}
