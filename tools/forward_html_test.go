package tools_test

import (
	"bytes"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	gomessage "github.com/emersion/go-message"

	"github.com/email-mcp/email-mcp/message"
	"github.com/email-mcp/email-mcp/tools"
)

// bodyParts returns the first text/plain and text/html parts of raw that
// are no attachments, decoded.
func bodyParts(t *testing.T, raw []byte) (text, html string) {
	t.Helper()
	ent, err := gomessage.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	_ = ent.Walk(func(_ []int, e *gomessage.Entity, err error) error {
		if err != nil {
			t.Fatalf("part: %v", err)
		}
		mt, _, _ := e.Header.ContentType()
		if disp, _, _ := e.Header.ContentDisposition(); disp == "attachment" || !strings.HasPrefix(mt, "text/") {
			return nil
		}
		b, _ := io.ReadAll(e.Body)
		switch {
		case mt == "text/plain" && text == "":
			text = string(b)
		case mt == "text/html" && html == "":
			html = string(b)
		}
		return nil
	})
	return text, html
}

// linkTargets are the targets of the links a person sees in an HTML body.
func linkTargets(html string) []string {
	var out []string
	for _, l := range message.RenderHTML(html, message.RenderOptions{}).Links {
		out = append(out, l.Href)
	}
	return out
}

// TestForwardInlineKeepsHTML: an inline forward of real HTML mail (an
// HTML-only one and a multipart/alternative one) carries an HTML part
// too: the note (escaped), the forwarded header and the original's HTML
// with every link it shows, beside the text part of before.
func TestForwardInlineKeepsHTML(t *testing.T) {
	acct, e, rl := threadEnv(t)
	for i, file := range []string{"gitea/auth_activate.eml", "ghost/members_signin.eml"} {
		raw, err := os.ReadFile("../extract/testdata/real/" + file)
		if err != nil {
			t.Fatal(err)
		}
		orig, _ := message.ParseBodies(raw)
		uid := acct.Append(t, "INBOX", raw)
		var r tools.ForwardResult
		e.call(t, "forward_email", map[string]any{"uid": uid, "to": "boss@example.test", "body": "FYI <b>see below</b>"}, &r)
		rl.mu.Lock()
		sent := rl.got[len(rl.got)-1]
		n := len(rl.got)
		rl.mu.Unlock()
		if n != i+1 || !r.Success {
			t.Fatalf("%s: %d messages relayed, result %+v", file, n, r)
		}
		text, html := bodyParts(t, sent)
		if !strings.Contains(text, "---------- Forwarded message ---------") || !strings.Contains(text, "FYI <b>see below</b>") {
			t.Errorf("%s: text part = %q, want the note and the forwarded block", file, text)
		}
		if html == "" {
			t.Fatalf("%s: the forward has no HTML part; the original has one of %d bytes", file, len(orig.HTML))
		}
		if !strings.Contains(html, "FYI &lt;b&gt;see below&lt;/b&gt;") || !strings.Contains(html, "Forwarded message") {
			t.Errorf("%s: HTML part lacks the escaped note or the forwarded header:\n%s", file, html)
		}
		got := linkTargets(html)
		for _, want := range linkTargets(orig.HTML) {
			if !slices.Contains(got, want) {
				t.Errorf("%s: HTML part lacks the original's link %q (has %q)", file, want, got)
			}
		}
	}
}
