package tools_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"

	"github.com/email-mcp/email-mcp/inboxtools"
	"github.com/email-mcp/email-mcp/tools"
)

// Hostile mail for the bounds of SECURITY.md: one header written huge by a
// sender. SMTP lines are at most 2000 bytes in the sandbox (go-smtp), so
// every long field is folded, as a sender has to.

// foldWords joins words into a folded header value, lines under 1000 bytes.
func foldWords(words []string, sep string) string {
	var b strings.Builder
	line := 0
	for i, w := range words {
		if i > 0 {
			b.WriteString(sep)
			line += len(sep)
			if line+len(w) > 900 {
				b.WriteString("\r\n ")
				line = 1
			}
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

// hostileSubject is a subject of about n bytes.
func hostileSubject(n int) string {
	words := make([]string, 0, n/8+1)
	for i := 0; i*8 < n; i++ {
		words = append(words, "subject")
	}
	return foldWords(words, " ")
}

// hostileTo is a To list of the inbox address and n-1 others.
func hostileTo(inbox string, n int) string {
	words := []string{inbox}
	for i := 1; i < n; i++ {
		words = append(words, fmt.Sprintf("Person %d <p%d@example.test>", i, i))
	}
	return foldWords(words, ", ")
}

// hostileIDs is a list of n message ids of idBytes each.
func hostileIDs(n, idBytes int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("<%d.%s@example.test>", i, strings.Repeat("i", max(idBytes-20, 1)))
	}
	return foldWords(words, " ")
}

// foldedID is one message id of about n bytes, folded inside (readers
// join its pieces again).
func foldedID(n int) string {
	var parts []string
	for ; n > 0; n -= 900 {
		parts = append(parts, strings.Repeat("i", min(n, 900)))
	}
	return "<" + strings.Join(parts, "\r\n ") + "@example.test>"
}

// hostileMail is a mail to inbox with the given extra header fields (which
// may replace Subject and To).
func hostileMail(inbox string, fields map[string]string) string {
	h := map[string]string{"From": "App <app@example.test>", "To": inbox, "Subject": "hello",
		"Message-ID": "<m1@example.test>", "Date": "Tue, 01 Dec 2026 10:00:00 +0000"}
	for k, v := range fields {
		h[k] = v
	}
	var b strings.Builder
	for _, k := range []string{"From", "To", "Cc", "Subject", "Message-ID", "In-Reply-To", "References", "Date"} {
		if v, ok := h[k]; ok {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString(h["Extra"])
	b.WriteString("Content-Type: text/plain\r\n\r\nYour code is 583920. Confirm: https://app.example.test/verify?t=abc\r\n")
	return b.String()
}

// sendRaw sends raw to rcpt through the sandbox's SMTP port.
func sendRaw(tb testing.TB, addr, rcpt, raw string) {
	tb.Helper()
	c, err := gosmtp.Dial(addr)
	if err != nil {
		tb.Fatalf("smtp dial: %v", err)
	}
	defer c.Close()
	if err := c.SendMail("app@example.test", []string{rcpt}, strings.NewReader(raw)); err != nil {
		tb.Fatalf("SendMail(%d bytes) = %v", len(raw), err)
	}
}

// heapPeak samples the heap of the process until stop is called and
// returns the highest value seen (runtime/metrics: no stop-the-world).
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var peak uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak }
}

// measured is one call's answer size (the CallToolResult as JSON, text and
// structuredContent) and what the process allocated during it.
type measured struct {
	answer int
	alloc  uint64
	peak   uint64
	result map[string]any
}

func measureCall(tb testing.TB, e *mailEnv, name string, args map[string]any) measured {
	tb.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	stop := heapPeak()
	res := callTool(tb, e.client, name, args)
	peak := stop()
	runtime.ReadMemStats(&after)
	if res.IsError {
		tb.Fatalf("%s(%v) isError: %+v", name, args, res.Content)
	}
	b, err := json.Marshal(res)
	if err != nil {
		tb.Fatal(err)
	}
	var out map[string]any
	structured(tb, res, &out)
	return measured{answer: len(b), alloc: after.TotalAlloc - before.TotalAlloc, peak: peak, result: out}
}

// Answer bounds of one call, from SECURITY.md's table: a summary is at most
// about 30 KB of JSON (1000 characters of subject, 21 addresses of 200
// characters and 254 bytes, an id of 998 bytes), twice (text and
// structuredContent); read_email adds three lists of 100 addresses, 50
// references and the default body window of 20,000 characters.
const (
	summaryAnswerBound = 64 << 10
	readAnswerBound    = 640 << 10
)

// TestBoundsHostileHeaders drives the whole tool stack on the sandbox with
// mail whose headers a sender made huge, at several sizes each, and checks
// that search_emails, the inbox summary (list_messages, wait_for_email) and
// read_email answer within a
// constant whatever the size, that the cut is reported, and that the
// memory the process allocates grows at most linearly with the mail.
func TestBoundsHostileHeaders(t *testing.T) {
	type class struct {
		name  string
		sizes []int
		mail  func(inbox string, n int) string
		check func(t *testing.T, n int, search, inbox, read map[string]any)
	}
	classes := []class{
		{"subject", []int{1 << 10, 64 << 10, 1 << 20, 10 << 20},
			func(in string, n int) string { return hostileMail(in, map[string]string{"Subject": hostileSubject(n)}) },
			func(t *testing.T, n int, search, inbox, read map[string]any) {
				for name, m := range map[string]map[string]any{"search_emails": search, "inbox summary": inbox, "read_email": read} {
					subj, _ := m["subject"].(string)
					if len([]rune(subj)) > 1000 || m["subject_truncated"] != true {
						t.Errorf("%s: subject of %d characters, subject_truncated %v; want at most 1000 and true", name, len([]rune(subj)), m["subject_truncated"])
					}
				}
			}},
		{"to", []int{10, 1000, 20000, 200000},
			func(in string, n int) string { return hostileMail(in, map[string]string{"To": hostileTo(in, n)}) },
			func(t *testing.T, n int, search, inbox, read map[string]any) {
				for name, c := range map[string]struct {
					m    map[string]any
					keep int
				}{"search_emails": {search, 20}, "inbox summary": {inbox, 20}, "read_email": {read, 100}} {
					to, _ := c.m["to"].([]any)
					total, _ := c.m["to_total"].(float64)
					switch {
					case n <= c.keep && (len(to) != n || c.m["to_total"] != nil):
						t.Errorf("%s: %d of %d recipients, to_total %v; want all, no to_total", name, len(to), n, c.m["to_total"])
					case n > c.keep && (len(to) != c.keep || int(total) <= c.keep || int(total) > n):
						t.Errorf("%s: %d of %d recipients, to_total %v; want %d and a total in (%d, %d]", name, len(to), n, c.m["to_total"], c.keep, c.keep, n)
					}
				}
			}},
		{"headers", []int{100, 1000, 10000},
			func(in string, n int) string {
				var b strings.Builder
				for i := range n {
					fmt.Fprintf(&b, "X-Filler-%d: %s\r\n", i, strings.Repeat("f", 40))
				}
				return hostileMail(in, map[string]string{"Extra": b.String()})
			}, nil},
		{"references", []int{10, 1000, 50000},
			func(in string, n int) string {
				return hostileMail(in, map[string]string{"References": hostileIDs(n, 100), "In-Reply-To": hostileIDs(1, 100),
					"Message-ID": foldedID(n * 10)})
			},
			func(t *testing.T, n int, search, inbox, read map[string]any) {
				refs, _ := read["references"].([]any)
				total, _ := read["references_total"].(float64)
				switch {
				case n <= 50 && (len(refs) != n || read["references_total"] != nil):
					t.Errorf("read_email: %d of %d references, references_total %v; want all, no total", len(refs), n, read["references_total"])
				case n > 50 && (len(refs) != 50 || int(total) <= 50 || int(total) > n):
					// the total counts what read_email reads of the header: 1 MiB
					t.Errorf("read_email: %d of %d references, references_total %v; want 50 and a total in (50, %d]", len(refs), n, total, n)
				}
				if id, _ := search["message_id"].(string); len(id) > 998 {
					t.Errorf("search_emails: message_id of %d bytes", len(id))
				}
			}},
	}
	for _, c := range classes {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range c.sizes {
				env := newTestEnv(t, tools.Options{})
				e := &inboxEnv{mailEnv: sandboxClient(t, env), mail: env.mail}
				in := e.create(t, "bounds")
				since := e.nextSince(t, in.InboxID)
				raw := c.mail(in.Address, n)
				sendRaw(t, env.sandbox.SMTPAddr(), in.Address, raw)
				search := measureCall(t, e.mailEnv, "search_emails", map[string]any{"limit": 1})
				msgs, _ := search.result["messages"].([]any)
				if len(msgs) != 1 {
					t.Fatalf("%s %d: search_emails found %d messages, want 1", c.name, n, len(msgs))
				}
				first := msgs[0].(map[string]any)
				// The inbox summary: list_messages, or wait_for_email where the
				// sandbox's SEARCH cannot see the mail (go-message reads at
				// most 1 MB of header). Both answer the same summary.
				inbox := measureCall(t, e.mailEnv, "list_messages", map[string]any{"inbox_id": in.InboxID, "limit": 1})
				ims, _ := inbox.result["messages"].([]any)
				if len(ims) == 0 {
					inbox = measureCall(t, e.mailEnv, "wait_for_email", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 10})
					ims = []any{inbox.result}
				}
				read := measureCall(t, e.mailEnv, "read_email", map[string]any{"uid": first["id"]})
				t.Logf("%s %d (%d bytes of mail): search_emails %d B answer, %d B alloc, %d B peak heap; inbox summary %d B, %d B alloc; read_email %d B, %d B alloc",
					c.name, n, len(raw), search.answer, search.alloc, search.peak, inbox.answer, inbox.alloc, read.answer, read.alloc)
				for _, m := range []struct {
					name  string
					got   measured
					bound int
				}{{"search_emails", search, summaryAnswerBound}, {"inbox summary", inbox, summaryAnswerBound}, {"read_email", read, readAnswerBound}} {
					if m.got.answer > m.bound {
						t.Errorf("%s %d: %s answered %d bytes, want at most %d whatever the mail", c.name, n, m.name, m.got.answer, m.bound)
					}
					// Linear at most: a fixed cost plus a few copies of the mail
					// (the sandbox parses it in the same process).
					if limit := uint64(64<<20 + 40*len(raw)); m.got.alloc > limit {
						t.Errorf("%s %d: %s allocated %d bytes for %d bytes of mail, want at most %d", c.name, n, m.name, m.got.alloc, len(raw), limit)
					}
				}
				if c.check != nil {
					c.check(t, n, first, ims[0].(map[string]any), read.result)
				}
			}
		})
	}
}

// BenchmarkBoundsHostileSearch measures one search_emails over hostile mail
// in the sandbox, the figures of SECURITY.md's bounds section: the answer
// (answer-B), what the process allocated (alloc-B, the in-process sandbox
// included) and the highest heap seen during the call (peak-heap-B, the
// stored mail included).
//
//	go test ./tools -run '^$' -bench BoundsHostileSearch -benchtime 1x
func BenchmarkBoundsHostileSearch(b *testing.B) {
	cases := []struct {
		name  string
		mails int
		field map[string]func(inbox string) string
	}{
		{"subject-5MB", 1, map[string]func(string) string{"Subject": func(string) string { return hostileSubject(5 << 20) }}},
		{"to-200000", 1, map[string]func(string) string{"To": func(in string) string { return hostileTo(in, 200000) }}},
		{"subject-60MBx4", 4, map[string]func(string) string{"Subject": func(string) string { return hostileSubject(60 << 20) }}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			env := newTestEnv(b, tools.Options{})
			e := sandboxClient(b, env)
			for range c.mails {
				fields := map[string]string{}
				for k, f := range c.field {
					fields[k] = f("someone@sandbox.localhost")
				}
				sendRaw(b, env.sandbox.SMTPAddr(), "someone@sandbox.localhost", hostileMail("someone@sandbox.localhost", fields))
			}
			var m measured
			for b.Loop() {
				m = measureCall(b, e, "search_emails", map[string]any{"limit": c.mails})
			}
			b.ReportMetric(float64(m.answer), "answer-B")
			b.ReportMetric(float64(m.alloc), "alloc-B")
			b.ReportMetric(float64(m.peak), "peak-heap-B")
		})
	}
}

// TestBoundsFolderNames: list_folders leaves out a folder whose name no
// folder argument accepts (over 1000 bytes) and counts it, instead of
// answering a name of any length.
func TestBoundsFolderNames(t *testing.T) {
	e := newMailEnv(t, tools.Options{})
	// Levels of 200 bytes: Dovecot refuses a longer level, not a longer name.
	var r0 tools.ListFoldersResult
	e.call(t, "list_folders", map[string]any{}, &r0)
	delim := r0.Folders[0].Delimiter
	level := strings.Repeat("L", 200)
	long := e.acct.Folder(strings.Join([]string{level, level, level, level, level, level}, delim))
	e.acct.CreateFolder(t, long)
	e.acct.CreateFolder(t, e.acct.Folder("Short"))
	var r tools.ListFoldersResult
	e.call(t, "list_folders", map[string]any{}, &r)
	found := false
	for _, f := range r.Folders {
		found = found || f.Name == e.acct.Folder("Short")
		if len(f.Name) > 1000 {
			t.Errorf("list_folders returned a name of %d bytes", len(f.Name))
		}
	}
	if !found || r.Omitted < 1 {
		t.Errorf("list_folders: Short found %v, folders_omitted %d; want true, at least 1", found, r.Omitted)
	}
}

// TestBoundsSearchAccount: the bounded summary fetch on the test account
// (Dovecot with EMAIL_MCP_TEST_DOVECOT=1, whose partial HEADER.FIELDS
// answers are the ones that matter): a huge subject and To list are cut and
// reported, the other fields of the mail stay whole.
func TestBoundsSearchAccount(t *testing.T) {
	e := newMailEnv(t, tools.Options{})
	folder := e.acct.Folder("Bounds")
	e.acct.CreateFolder(t, folder)
	raw := hostileMail("qa@example.test", map[string]string{"Subject": hostileSubject(1 << 20), "To": hostileTo("qa@example.test", 20000)})
	e.acct.Append(t, folder, []byte(raw))
	var r struct {
		Messages []map[string]any `json:"messages"`
	}
	res := e.call(t, "search_emails", map[string]any{"folder": folder, "limit": 1}, &r)
	b, _ := json.Marshal(res)
	if len(r.Messages) != 1 || len(b) > summaryAnswerBound {
		t.Fatalf("search_emails: %d messages, %d bytes; want 1 within %d", len(r.Messages), len(b), summaryAnswerBound)
	}
	m := r.Messages[0]
	to, _ := m["to"].([]any)
	total, _ := m["to_total"].(float64)
	if m["subject_truncated"] != true || !strings.HasPrefix(m["subject"].(string), "subject subject") ||
		len(to) != 20 || to[0] != "qa@example.test" || total <= 20 || total > 20000 {
		t.Errorf("summary = subject %.40q truncated %v, %d to (first %v), to_total %v; want cut and reported",
			m["subject"], m["subject_truncated"], len(to), to[0], m["to_total"])
	}
	if m["from"] != "App <app@example.test>" || m["message_id"] != "m1@example.test" || !strings.HasPrefix(m["date"].(string), "2026-12-01") {
		t.Errorf("summary = from %v, message_id %v, date %v; want them whole", m["from"], m["message_id"], m["date"])
	}
}

// TestBoundsLinks: wait_for_link keeps at most 20 links, leaves out a link
// over 8 KiB rather than cutting it, and reports a cut subject.
func TestBoundsLinks(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := &inboxEnv{mailEnv: sandboxClient(t, env), mail: env.mail}
	in := e.create(t, "links")
	since := e.nextSince(t, in.InboxID)
	var body strings.Builder
	// 9 KB of link, in quoted-printable lines of 900 (SMTP lines are at
	// most 2000 bytes here)
	long := strings.Repeat("x", 9000)
	var qp []string
	for ; len(long) > 0; long = long[min(len(long), 900):] {
		qp = append(qp, long[:min(len(long), 900)])
	}
	fmt.Fprintf(&body, "Verify: https://app.example.test/verify/%s\r\n", strings.Join(qp, "=\r\n"))
	for i := range 30 {
		fmt.Fprintf(&body, "Confirm your account: https://app.example.test/confirm/%d\r\n", i)
	}
	raw := strings.Replace(hostileMail(in.Address, map[string]string{"Subject": hostileSubject(5000), "Extra": "Content-Transfer-Encoding: quoted-printable\r\n"}),
		"Your code is 583920. Confirm: https://app.example.test/verify?t=abc\r\n", body.String(), 1)
	sendRaw(t, env.sandbox.SMTPAddr(), in.Address, raw)
	var r inboxtools.WaitLinkResult
	e.call(t, "wait_for_link", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 10}, &r)
	if len(r.Links) == 0 || len(r.Links) > 20 || !r.SubjectTruncated || len([]rune(r.Subject)) > 1000 {
		t.Fatalf("wait_for_link: %d links, subject of %d characters, subject_truncated %v; want 1..20, at most 1000, true",
			len(r.Links), len([]rune(r.Subject)), r.SubjectTruncated)
	}
	for _, l := range append(r.Links, r.Link) {
		if len(l) > 8192 {
			t.Errorf("wait_for_link returned a link of %d bytes", len(l))
		}
	}
}
