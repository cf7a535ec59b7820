package tools_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/tools"
)

// nestedMail is a message of depth multiparts, one inside the other, each
// level with a short text part beside the next; the innermost holds a text
// body, the outermost a base64 attachment last.
func nestedMail(subject string, depth int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "From: App <app@example.test>\r\nTo: nest@sandbox.localhost\r\nSubject: %s\r\nMIME-Version: 1.0\r\n", subject)
	for i := range depth {
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n--b%d\r\nContent-Type: text/plain\r\n\r\nlevel %d\r\n--b%d\r\n", i, i, i, i)
	}
	b.WriteString("Content-Type: text/plain\r\n\r\ninnermost body\r\n")
	for i := depth - 1; i >= 0; i-- {
		if i == 0 {
			b.WriteString("--b0\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0=\r\n")
		}
		fmt.Fprintf(&b, "--b%d--\r\n", i)
	}
	return b.String()
}

// readCost reads the message with subject through read_email and returns
// the bytes of its answer and the bytes allocated in the process meanwhile
// (the sandbox's included).
//
// It reads by uid, without search_emails: the sandbox's own BODYSTRUCTURE
// of deep mail is slow (devmail's to fix), and a search builds it for every
// message.
func readCost(t *testing.T, e *mailEnv, uid int, subject string) (answer int, alloc uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var r tools.ReadResult
	res := e.call(t, "read_email", map[string]any{"uid": uid}, &r)
	runtime.ReadMemStats(&after)
	if r.Subject != subject {
		t.Fatalf("read_email(uid %d) subject = %q, want %q", uid, r.Subject, subject)
	}
	if r.BodyText != "level 0" || len(r.Attachment) != 1 || r.Attachment[0].SizeBytes != 5 {
		t.Errorf("read_email(%q) body_text = %q, attachments %+v; want the first level's text and one of 5 bytes", subject, r.BodyText, r.Attachment)
	}
	return len(res.Content[0].(mcp.TextContent).Text), after.TotalAlloc - before.TotalAlloc
}

// TestReadNestedLinear: read_email on mail of nested multiparts (sent to
// the sandbox over SMTP) answers the innermost levels it reaches, and its
// answer and the memory allocated for it grow at most linearly with the
// size of the mail (at most in proportion: fixed costs make the small
// mail's relatively bigger). 100 and 1,600 levels: the sandbox's own
// BODYSTRUCTURE of deeper mail takes longer than a call may under -race.
func TestReadNestedLinear(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := sandboxClient(t, env)
	type cost struct {
		size, answer int
		alloc        uint64
	}
	var costs []cost
	for i, depth := range []int{100, 1600} {
		subject := fmt.Sprintf("nested %d", depth)
		raw := nestedMail(subject, depth)
		sendRaw(t, env.sandbox.SMTPAddr(), "nest@sandbox.localhost", raw)
		answer, alloc := readCost(t, e, i+1, subject) // the sandbox's INBOX is fresh: UIDs 1, 2
		costs = append(costs, cost{len(raw), answer, alloc})
		t.Logf("depth %d: mail %d bytes, answer %d bytes, allocated %d bytes", depth, len(raw), answer, alloc)
	}
	small, big := costs[0], costs[1]
	grow := float64(big.size) / float64(small.size)
	if float64(big.alloc) > grow*float64(small.alloc) || float64(big.answer) > grow*float64(small.answer) {
		t.Errorf("mail x%.1f: answer x%.1f, allocated x%.1f; want both at most x%.1f (linear)",
			grow, float64(big.answer)/float64(small.answer), float64(big.alloc)/float64(small.alloc), grow)
	}
}
