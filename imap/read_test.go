package imap_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/imap"
)

// Sizes of read_email (tools/read_email.go): the first FETCH's prefix and
// the bound of a text part fetched on its own.
const (
	readPrefix  = 1 << 20
	maxTextPart = 8 << 20
)

// bigAlternative is a multipart/alternative mail whose text part is n
// bytes: over readPrefix, the text parts are fetched on their own.
func bigAlternative(id string, n int) string {
	line := strings.Repeat("x", 76) + "\r\n"
	text := strings.Repeat(line, n/len(line))
	return "From: a@example.test\r\nTo: b@example.test\r\nSubject: big " + id + "\r\nMessage-ID: <" + id + "@example.test>\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=alt\r\n\r\n" +
		"--alt\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nstart of " + id + "\r\n" + text +
		"--alt\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>html of " + id + "</p>\r\n--alt--\r\n"
}

// readTheOldWay is what tools/read_email.go did before ReadMessage, each
// step its own operation: FetchMessage, the decoding (Display), the text
// parts with FetchParts (Bodies) when the message did not come whole, then
// SetFlags for mark_read.
func readTheOldWay(t testing.TB, c *imap.Client, uid uint32, mark bool) *imap.Display {
	t.Helper()
	ctx := context.Background()
	m, err := c.FetchMessage(ctx, "INBOX", uid, readPrefix)
	if err != nil {
		t.Fatalf("FetchMessage(%d) = %v", uid, err)
	}
	d := m.Display()
	if !m.Complete {
		if d.Bodies, d.Incomplete, err = c.Bodies(ctx, "INBOX", m, maxTextPart); err != nil {
			t.Fatalf("Bodies(%d) = %v", uid, err)
		}
	}
	if mark {
		flags, err := c.SetFlags(ctx, "INBOX", []uint32{uid}, imap.FlagChange{Seen: ptr(true)})
		if err != nil {
			t.Fatalf("SetFlags(%d) = %v", uid, err)
		}
		m.Flags = flags[uid]
	}
	return d
}

// TestReadMessageCommands: ReadMessage sends no more commands than the
// operations read_email used to call one by one (the same for a message
// read whole or in parts; one SELECT less with mark_read), and reads what
// they read.
func TestReadMessageCommands(t *testing.T) {
	tests := []struct {
		name string
		big  bool
		mark bool
		want []string
	}{
		{"small", false, false, []string{"EXAMINE", "UID FETCH"}},
		{"big", true, false, []string{"EXAMINE", "UID FETCH", "UID FETCH"}},
		{"small, mark read", false, true, []string{"SELECT", "UID FETCH", "UID SEARCH", "UID STORE"}},
		{"big, mark read", true, true, []string{"SELECT", "UID FETCH", "UID FETCH", "UID SEARCH", "UID STORE"}},
	}
	for _, tt := range tests {
		ts := newTestServer(t, modePlain, capsFull)
		raw := func(id string) string {
			if tt.big {
				return bigAlternative(id, 2<<20)
			}
			return rawMessage(testMsg{from: "a@example.test", to: "b@example.test", subject: "small", body: "start of " + id, id: id, date: day(2024, 1, 1)})
		}
		oldUID := ts.deliver(t, "INBOX", raw("old"), day(2024, 1, 1))
		newUID := ts.deliver(t, "INBOX", raw("new"), day(2024, 1, 1))
		var before *imap.Display
		old := readCommands(t, ts, func(c *imap.Client) { before = readTheOldWay(t, c, oldUID, tt.mark) })
		var d *imap.Display
		got := readCommands(t, ts, func(c *imap.Client) {
			var err error
			d, err = c.ReadMessage(context.Background(), "INBOX", newUID, imap.ReadOptions{PrefixBytes: readPrefix, MaxPartBytes: maxTextPart, MarkSeen: tt.mark})
			if err != nil {
				t.Fatalf("%s: ReadMessage() = %v", tt.name, err)
			}
		})
		t.Logf("%s: one by one %q; ReadMessage %q", tt.name, old, got)
		if !slices.Equal(got, tt.want) || len(got) > len(old) {
			t.Errorf("%s: ReadMessage sent %q, want %q (the operations one by one sent %q)", tt.name, got, tt.want, old)
		}
		if !strings.HasPrefix(d.Bodies.Text, "start of new") || d.Complete == tt.big || slices.Contains(d.Flags, `\Seen`) != tt.mark {
			t.Errorf("%s: ReadMessage() = text %.20q, complete %v, flags %v", tt.name, d.Bodies.Text, d.Complete, d.Flags)
		}
		if strings.ReplaceAll(before.Bodies.Text, "old", "new") != d.Bodies.Text || strings.ReplaceAll(before.Bodies.HTML, "old", "new") != d.Bodies.HTML ||
			before.Incomplete != d.Incomplete || !slices.Equal(before.Flags, d.Flags) {
			t.Errorf("%s: ReadMessage() = %.40q, flags %v; the operations one by one read %.40q, flags %v", tt.name, d.Bodies.Text, d.Flags, before.Bodies.Text, before.Flags)
		}
	}
}

// readCommands runs read on a new client, logged in before, and returns
// the commands read sent.
func readCommands(t *testing.T, ts *testServer, read func(c *imap.Client)) []string {
	t.Helper()
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	if err := c.Noop(context.Background()); err != nil {
		t.Fatalf("Noop() = %v", err)
	}
	ts.commands()
	read(c)
	return ts.commands()
}

// TestReadMessage: the bodies, the attachments with their decoded sizes,
// the header; a stale UIDVALIDITY or a missing UID reads and changes nothing.
func TestReadMessage(t *testing.T) {
	_, c, raw := nestedServer(t)
	ctx := context.Background()
	d, err := c.ReadMessage(ctx, "INBOX", 1, imap.ReadOptions{PrefixBytes: readPrefix, MaxPartBytes: maxTextPart})
	if err != nil {
		t.Fatalf("ReadMessage() = %v", err)
	}
	var atts []string
	for _, a := range d.Attachments {
		atts = append(atts, fmt.Sprintf("%v %s %d", a.Path, a.MediaType(), a.DecodedSize))
	}
	if !d.Complete || d.Header.Subject == "" || d.Bodies.Text == "" || len(d.Attachments) != len(d.Structure.Attachments()) || d.Size != int64(len(raw)) {
		t.Errorf("ReadMessage() = subject %q, text %.30q, attachments %q", d.Header.Subject, d.Bodies.Text, atts)
	}
	for _, a := range d.Attachments {
		if a.Encoding == "base64" && (a.DecodedSize == 0 || a.DecodedSize > a.Size) {
			t.Errorf("attachment %v: decoded size %d of %d encoded bytes", a.Path, a.DecodedSize, a.Size)
		}
	}
	_, err = c.ReadMessage(ctx, "INBOX", 1, imap.ReadOptions{UIDValidity: d.UIDValidity + 1, MarkSeen: true})
	if !errors.Is(err, imap.ErrUIDValidityChanged) {
		t.Errorf("ReadMessage(stale UIDVALIDITY) = %v, want ErrUIDValidityChanged", err)
	}
	_, err = c.ReadMessage(ctx, "INBOX", 99, imap.ReadOptions{MarkSeen: true})
	if !errors.Is(err, imap.ErrMessageNotFound) {
		t.Errorf("ReadMessage(uid 99) = %v, want ErrMessageNotFound", err)
	}
	m, err := c.FetchMessage(ctx, "INBOX", 1, 1)
	if err != nil || slices.Contains(m.Flags, `\Seen`) {
		t.Errorf("after the refused reads: flags %v, %v; want unread", m.Flags, err)
	}
}

// BenchmarkReadMessage: read_email's IMAP side on the in-process server,
// ReadMessage against the operations it replaces called one by one
// (readTheOldWay), for a small message, one whose text parts are fetched
// on their own, and a small one marked read:
//
//	go test ./imap -run '^$' -bench ReadMessage -benchmem
func BenchmarkReadMessage(b *testing.B) {
	for _, bc := range []struct {
		name      string
		big, mark bool
	}{{"small", false, false}, {"big", true, false}, {"small-mark", false, true}} {
		ts := newTestServer(b, modePlain, capsFull)
		raw := rawMessage(testMsg{from: "a@example.test", to: "b@example.test", subject: "small", body: "hello", id: "s", date: day(2024, 1, 1)})
		if bc.big {
			raw = bigAlternative("b", 2<<20)
		}
		uid := ts.deliver(b, "INBOX", raw, day(2024, 1, 1))
		c := newClient(b, clientOptions(b, ts.Port, modePlain))
		o := imap.ReadOptions{PrefixBytes: readPrefix, MaxPartBytes: maxTextPart, MarkSeen: bc.mark}
		b.Run(bc.name+"/one-by-one", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				readTheOldWay(b, c, uid, bc.mark)
			}
		})
		b.Run(bc.name+"/ReadMessage", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.ReadMessage(context.Background(), "INBOX", uid, o); err != nil {
					b.Fatalf("ReadMessage() = %v", err)
				}
			}
		})
	}
}
