package imap_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/email-mcp/email-mcp/imap"
)

// folded joins words into a folded header value.
func folded(words []string, sep string) string {
	var b strings.Builder
	line := 0
	for i, w := range words {
		if i > 0 {
			b.WriteString(sep)
			if line += len(sep); line+len(w) > 900 {
				b.WriteString("\r\n ")
				line = 1
			}
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

// TestSearchSummaryBounded: a summary fetches each header field with a
// byte budget, so a sender's huge Subject or To is cut by the server and
// reported (SubjectCut, ToCut), its last whole To entries kept and no
// encoded word or character cut in the middle, while the other fields of
// the same mail stay whole.
func TestSearchSummaryBounded(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	words := make([]string, 20000)
	for i := range words {
		words[i] = "=?utf-8?q?Gr=C3=BC=C3=9Fe?=" // "Grüße", 20,000 times
	}
	to := make([]string, 5000)
	for i := range to {
		to[i] = fmt.Sprintf("Person %d <p%d@example.test>", i, i)
	}
	huge := "From: Alice <alice@example.test>\r\nTo: " + folded(to, ", ") + "\r\nSubject: " + folded(words, " ") +
		"\r\nMessage-ID: <big@example.test>\r\nDate: Tue, 01 Dec 2026 10:00:00 +0000\r\n\r\nbody\r\n"
	small := "From: bob@example.test\r\nTo: a@example.test, b@example.test\r\nSubject: hello\r\n\r\nbody\r\n"
	ts.deliver(t, "INBOX", huge, time.Now())
	ts.deliver(t, "INBOX", small, time.Now())
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	res, err := c.Search(context.Background(), "INBOX", imap.SearchCriteria{}, imap.PageRequest{Limit: 2})
	if err != nil || len(res.Messages) != 2 {
		t.Fatalf("Search() = %v, %v; want 2 messages", res, err)
	}
	s, m := res.Messages[0], res.Messages[1]
	if s.SubjectCut || s.ToCut || s.Subject != "hello" || len(s.To) != 2 {
		t.Errorf("small summary = %+v, want whole, not cut", s)
	}
	if !m.SubjectCut || !m.ToCut {
		t.Errorf("SubjectCut, ToCut = %v, %v; want true, true", m.SubjectCut, m.ToCut)
	}
	if !strings.HasPrefix(m.Subject, "GrüßeGrüße") || strings.Contains(m.Subject, "=?") ||
		!utf8.ValidString(m.Subject) || strings.ContainsRune(m.Subject, utf8.RuneError) || len(m.Subject) > 8<<10 {
		t.Errorf("Subject = %.60q... (%d bytes), want decoded Grüße only, at most 8 KiB", m.Subject, len(m.Subject))
	}
	if len(m.To) < 100 || len(m.To) >= 5000 {
		t.Errorf("%d To entries, want the ones in 16 KiB (100..4999)", len(m.To))
	}
	for i, a := range m.To {
		if want := fmt.Sprintf("p%d@example.test", i); a.Email != want || a.Name != fmt.Sprintf("Person %d", i) {
			t.Fatalf("To[%d] = %+v, want Person %d <%s> (no entry cut short)", i, a, i, want)
		}
	}
	if len(m.From) != 1 || m.From[0].Email != "alice@example.test" || m.MessageID != "big@example.test" || m.Date.Year() != 2026 {
		t.Errorf("From %+v, MessageID %q, Date %v; want them whole beside the cut fields", m.From, m.MessageID, m.Date)
	}
}
