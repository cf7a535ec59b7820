package tools_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"mime/quotedprintable"
	"slices"
	"strings"
	"testing"
	"time"

	gomessage "github.com/emersion/go-message"
	gosmtp "github.com/emersion/go-smtp"

	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/tools"
)

// ownRelay is a relay that delivers only mail for the account's own
// address: a reply to an outside sender then exists only as the sent copy,
// in Sent, as on a real account.
type ownRelay struct{ relay }

func (o *ownRelay) NewSession(*gosmtp.Conn) (gosmtp.Session, error) {
	return &ownSession{relaySession{r: &o.relay}}, nil
}

type ownSession struct{ relaySession }

func (s *ownSession) Data(r io.Reader) error {
	if !slices.Contains(s.rcpts, s.r.acct.Username) {
		raw, err := io.ReadAll(r)
		s.r.mu.Lock()
		s.r.got = append(s.r.got, raw)
		s.r.envs = append(s.r.envs, s.rcpts)
		s.r.mu.Unlock()
		return err
	}
	return s.relaySession.Data(r)
}

// threadEnv is the tool stack on the test account (in-process or Dovecot)
// with a submission relay that keeps what it was given.
func threadEnv(t *testing.T) (*mailtest.Account, *mailEnv, *ownRelay) {
	t.Helper()
	acct := mailtest.NewAccount(t)
	rl := &ownRelay{relay{t: t, acct: acct}}
	mail, sender := relayClients(t, acct, rl)
	ts, err := tools.New(tools.Deps{Mail: mail, Sent: mail, Sender: sender,
		Send: tools.SendOptions{From: acct.Username, FromName: "Agent", SaveSent: "true", SentFolder: acct.Folder("Sent")}},
		tools.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return acct, &mailEnv{acct: acct, client: inProcessClient(t, ts)}, rl
}

func uniqueID(t *testing.T, tag string) string {
	t.Helper()
	return tag + "-" + strings.ToLower(rand.Text()[:10]) + "@example.test"
}

// TestGetThreadReplyExchange: a conversation of reply_email answers across
// INBOX and Sent comes back whole from get_thread, oldest first, from any
// of its messages, and nothing unrelated joins it.
func TestGetThreadReplyExchange(t *testing.T) {
	acct, e, _ := threadEnv(t)
	first := uniqueID(t, "t1")
	subject := "Lunch " + first[:13]
	m1 := "From: Friend <friend@example.test>\r\nTo: " + acct.Username + "\r\nSubject: " + subject + "\r\nMessage-ID: <" + first + ">\r\n" +
		"Date: Mon, 01 Jan 2024 10:00:00 +0000\r\n\r\nShall we meet at noon?\r\n"
	uid1 := acct.Append(t, "INBOX", []byte(m1))
	var r1 tools.ReplyResult
	e.call(t, "reply_email", map[string]any{"uid": uid1, "body": "Noon works."}, &r1)
	if r1.SentCopy != "saved" {
		t.Fatalf("reply 1 = %+v, want a sent copy", r1)
	}
	third := uniqueID(t, "t3")
	m3 := "From: Friend <friend@example.test>\r\nTo: " + acct.Username + "\r\nSubject: Re: " + subject + "\r\nMessage-ID: <" + third + ">\r\n" +
		"In-Reply-To: <" + r1.MessageID + ">\r\nReferences: <" + first + "> <" + r1.MessageID + ">\r\n" +
		"Date: " + time.Now().Format(time.RFC1123Z) + "\r\n\r\nGreat, see you.\r\n\r\n> Noon works.\r\n"
	uid3 := acct.Append(t, "INBOX", []byte(m3))
	// Same subject, no links: not part of the conversation.
	acct.Append(t, "INBOX", []byte("From: x@example.test\r\nSubject: Re: "+subject+"\r\nMessage-ID: <"+uniqueID(t, "other")+">\r\n\r\nunrelated\r\n"))
	var r2 tools.ReplyResult
	e.call(t, "reply_email", map[string]any{"uid": uid3, "body": "Booked a table."}, &r2)
	want := []string{first, r1.MessageID, third, r2.MessageID}

	var th tools.ThreadResult
	e.call(t, "get_thread", map[string]any{"uid": uid1}, &th)
	if got := threadIDs(th); !slices.Equal(got, want) || th.Total != 4 || th.HasMore || th.Incomplete {
		t.Fatalf("get_thread(first) = ids %v total %d has_more %v, want %v", got, th.Total, th.HasMore, want)
	}
	sent := acct.Folder("Sent")
	if f := []string{th.Messages[0].Folder, th.Messages[1].Folder, th.Messages[2].Folder, th.Messages[3].Folder}; !slices.Equal(f, []string{"INBOX", sent, "INBOX", sent}) {
		t.Errorf("folders = %v", f)
	}
	if th.Messages[1].Preview != "Noon works." || th.Messages[2].Preview != "Great, see you." || !strings.HasPrefix(th.Messages[0].From, "Friend") {
		t.Errorf("previews = %q, %q; from %q", th.Messages[1].Preview, th.Messages[2].Preview, th.Messages[0].From)
	}
	// From the last reply, in Sent, by its id: the same conversation.
	var fromSent tools.ThreadResult
	e.call(t, "get_thread", map[string]any{"uid": th.Messages[3].ID, "folder": sent}, &fromSent)
	if got := threadIDs(fromSent); !slices.Equal(got, want) {
		t.Errorf("get_thread(last, Sent) = %v, want %v", got, want)
	}
	var page tools.ThreadResult
	e.call(t, "get_thread", map[string]any{"uid": uid3, "limit": 2}, &page)
	if got := threadIDs(page); !slices.Equal(got, want[2:]) || page.Total != 4 || !page.HasMore || page.Omitted != 2 {
		t.Errorf("limit 2 = %v total %d has_more %v omitted %d, want the newest two", got, page.Total, page.HasMore, page.Omitted)
	}
	e.wantError(t, "get_thread", map[string]any{"uid": 999999}, mcpkit.CodeMessageNotFound)
	e.wantError(t, "get_thread", map[string]any{"uid": uid1, "limit": 201}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "get_thread", map[string]any{"uid": uid1, "folder": acct.Folder("NoSuchFolder")}, mcpkit.CodeFolderNotFound)
}

func threadIDs(th tools.ThreadResult) []string {
	var ids []string
	for _, m := range th.Messages {
		ids = append(ids, m.MessageID)
	}
	return ids
}

// forwardFixture is a message with three attachments in three encodings;
// sums are the SHA-256 of their decoded contents, by file name.
func forwardFixture(t *testing.T, acct *mailtest.Account, subject string) (raw []byte, sums map[string]string) {
	t.Helper()
	bin := make([]byte, 70000)
	_, _ = rand.Read(bin)
	text := strings.Repeat("Zeile mit Umlauten äöü = und Gleichheitszeichen\r\n", 50)
	plain := "plain 7bit notes\r\nsecond line\r\n"
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	sums = map[string]string{"data.bin": sum(bin), "notes.txt": sum([]byte(text)), "plain.txt": sum([]byte(plain))}
	b64 := base64.StdEncoding.EncodeToString(bin)
	var lines []string
	for len(b64) > 0 { // 60-character lines: not what the composer writes
		n := min(60, len(b64))
		lines, b64 = append(lines, b64[:n]), b64[n:]
	}
	var qp bytes.Buffer
	w := quotedprintable.NewWriter(&qp)
	_, _ = w.Write([]byte(text))
	_ = w.Close()
	raw = []byte("From: Sender <sender@example.test>\r\nTo: " + acct.Username + "\r\nSubject: " + subject + "\r\n" +
		"Message-ID: <" + uniqueID(t, "fwd") + ">\r\nDate: Tue, 02 Jan 2024 09:00:00 +0000\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=\"XX\"\r\n\r\n" +
		"--XX\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nPlease see the three files.\r\n" +
		"--XX\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"data.bin\"\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
		strings.Join(lines, "\r\n") + "\r\n" +
		"--XX\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Disposition: attachment; filename=\"notes.txt\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" +
		qp.String() + "\r\n" +
		"--XX\r\nContent-Type: text/plain; charset=us-ascii\r\nContent-Disposition: attachment; filename=\"plain.txt\"\r\n\r\n" +
		plain + "\r\n--XX--\r\n")
	return raw, sums
}

// attachmentSums walks a message and returns the SHA-256 of each
// attachment's decoded content by file name; with into, a message/rfc822
// attachment is walked too instead of counted.
func attachmentSums(t *testing.T, raw []byte, into bool) (sums map[string]string, text string, embedded int) {
	t.Helper()
	sums = map[string]string{}
	ent, err := gomessage.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	var walk func(e *gomessage.Entity)
	walk = func(e *gomessage.Entity) {
		mt, _, _ := e.Header.ContentType()
		if mr := e.MultipartReader(); mr != nil {
			for {
				p, err := mr.NextPart()
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Fatalf("part: %v", err)
				}
				walk(p)
			}
		}
		b, err := io.ReadAll(e.Body)
		if err != nil {
			t.Fatalf("body: %v", err)
		}
		_, params, _ := e.Header.ContentDisposition()
		switch {
		case mt == "message/rfc822" && into:
			embedded++
			inner, _, _ := attachmentSums(t, b, false)
			for k, v := range inner {
				sums[k] = v
			}
		case params["filename"] != "":
			s := sha256.Sum256(b)
			sums[params["filename"]] = hex.EncodeToString(s[:])
		case mt == "text/plain" && text == "":
			text = string(b)
		}
	}
	walk(ent)
	return sums, text, embedded
}

// TestForwardCarriesAttachments: a forward of a message with three
// attachments (base64 in odd lines, quoted-printable, 7bit) carries all
// three byte-identical, in both modes; the subject is normalised, the
// original gets $Forwarded, the Sent copy is filed.
func TestForwardCarriesAttachments(t *testing.T) {
	acct, e, rl := threadEnv(t)
	subject := "Fw: WG: Quarterly " + strings.ToLower(rand.Text()[:6])
	raw, want := forwardFixture(t, acct, subject)
	uid := acct.Append(t, "INBOX", raw)
	for i, mode := range []string{"inline", "attachment"} {
		var r tools.ForwardResult
		e.call(t, "forward_email", map[string]any{"uid": uid, "to": "Boss <boss@example.test>", "cc": "cc@example.test",
			"body": "FYI, see below.", "mode": mode}, &r)
		if !r.Success || r.SentCopy != "saved" || r.Mode != mode || r.Subject != "Fwd: "+subject[8:] {
			t.Errorf("%s: result = %+v", mode, r)
		}
		rl.mu.Lock()
		if len(rl.got) != i+1 {
			rl.mu.Unlock()
			t.Fatalf("%s: relay got %d messages, want %d", mode, len(rl.got), i+1)
		}
		sent := rl.got[i]
		rl.mu.Unlock()
		got, text, embedded := attachmentSums(t, sent, true)
		if len(got) != 3 || got["data.bin"] != want["data.bin"] || got["notes.txt"] != want["notes.txt"] || got["plain.txt"] != want["plain.txt"] {
			t.Errorf("%s: attachment sums = %v, want %v", mode, got, want)
		}
		switch mode {
		case "inline":
			if r.Attachments != 3 || !strings.Contains(text, "FYI, see below.") || !strings.Contains(text, "---------- Forwarded message ---------") ||
				!strings.Contains(text, "From: Sender <sender@example.test>") || !strings.Contains(text, "Subject: "+subject) ||
				!strings.Contains(text, "Please see the three files.") {
				t.Errorf("inline text = %q (attachments %d)", text, r.Attachments)
			}
		case "attachment":
			if r.Attachments != 1 || embedded != 1 || !bytes.Contains(sent, raw[:200]) {
				t.Errorf("attachment mode: %d embedded, original bytes carried: %v", embedded, bytes.Contains(sent, raw[:200]))
			}
		}
	}
	if f := acct.Flags(t, "INBOX", uid); !slices.Contains(f, "$Forwarded") {
		t.Errorf("original flags = %v, want $Forwarded", f)
	}
	var inSent tools.SearchResult
	e.call(t, "search_emails", map[string]any{"folder": acct.Folder("Sent"), "subject": subject[8:]}, &inSent)
	if inSent.Total != 2 {
		t.Errorf("Sent holds %d forwards, want 2", inSent.Total)
	}
	e.wantError(t, "forward_email", map[string]any{"uid": uid, "to": "b@example.test", "mode": "digest"}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "forward_email", map[string]any{"uid": 999999, "to": "b@example.test"}, mcpkit.CodeMessageNotFound)
	e.wantError(t, "forward_email", map[string]any{"uid": uid, "to": "b@example.test\r\nBcc: x@example.test"}, mcpkit.CodeInvalidArgument)
}

// TestThreadToolsReadOnly: read-only mode lists get_thread (it only
// reads) and hides forward_email (it sends), with the send tools around.
func TestThreadToolsReadOnly(t *testing.T) {
	for _, ro := range []bool{false, true} {
		env := newTestEnv(t, tools.Options{ReadOnly: ro})
		names := env.tools.ToolNames()
		if !slices.Contains(names, "get_thread") || slices.Contains(names, "forward_email") != !ro {
			t.Errorf("read-only %v: tools %v; want get_thread always, forward_email only when not read-only", ro, names)
		}
	}
}

// TestForwardGuardrails: forward_email goes through the send path's
// guardrails: a recipient off SEND_ALLOWED_RECIPIENTS is refused before
// anything is sent, and the original is not marked.
func TestForwardGuardrails(t *testing.T) {
	acct := mailtest.NewAccount(t)
	rl := &ownRelay{relay{t: t, acct: acct}}
	mail, sender := relayClients(t, acct, rl)
	ts, err := tools.New(tools.Deps{Mail: mail, Sent: mail, Sender: sender,
		Send: tools.SendOptions{From: acct.Username, SaveSent: "false", AllowedRecipients: []string{"example.org"}}},
		tools.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e := &mailEnv{acct: acct, client: inProcessClient(t, ts)}
	uid := acct.Append(t, "INBOX", []byte("From: a@example.test\r\nSubject: guarded\r\nMessage-ID: <"+uniqueID(t, "g")+">\r\n\r\nbody\r\n"))
	e.wantError(t, "forward_email", map[string]any{"uid": uid, "to": "boss@example.test"}, mcpkit.CodeRecipientNotAllowed)
	many := make([]any, 101)
	for i := range many {
		many[i] = "r" + strings.Repeat("x", i%7) + "@example.org"
	}
	e.wantError(t, "forward_email", map[string]any{"uid": uid, "to": many}, mcpkit.CodeInvalidArgument)
	rl.mu.Lock()
	n := len(rl.got)
	rl.mu.Unlock()
	if n != 0 {
		t.Errorf("relay got %d messages from refused forwards", n)
	}
	if f := acct.Flags(t, "INBOX", uid); slices.Contains(f, "$Forwarded") {
		t.Errorf("refused forward set $Forwarded: %v", f)
	}
	var r tools.ForwardResult
	e.call(t, "forward_email", map[string]any{"uid": uid, "to": "boss@example.org"}, &r)
	if !r.Success || r.Subject != "Fwd: guarded" || r.SentCopy != "disabled" {
		t.Errorf("allowed forward = %+v", r)
	}
}

// TestForwardAuditAndHourlyCap: forward_email counts against
// SEND_MAX_PER_HOUR like every send, and logs one audit line per call
// (never the subject or the note); get_thread, which only reads, logs none.
func TestForwardAuditAndHourlyCap(t *testing.T) {
	var logs syncBuffer
	env := newTestEnv(t, tools.Options{})
	e := guardedClient(t, env, tools.SendOptions{MaxPerHour: 1},
		tools.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), CallerID: func(context.Context) string { return "key-7" }})
	env.sendMail(t, testFrom, "Secret plans for the audit")
	msg := findOne(t, e, "INBOX", "Secret plans")
	e.call(t, "get_thread", map[string]any{"uid": msg.UID}, &tools.ThreadResult{})
	var r tools.ForwardResult
	e.call(t, "forward_email", map[string]any{"uid": msg.UID, "to": []any{"a@example.test", "b@example.test"}, "body": "note hunter2"}, &r)
	e.wantError(t, "forward_email", map[string]any{"uid": msg.UID, "to": "a@example.test"}, mcpkit.CodeRateLimited)
	lines := auditLines(t, logs.String())
	if len(lines) != 2 || lines[0]["tool"] != "forward_email" || lines[0]["result"] != "ok" || lines[0]["recipients"] != float64(2) ||
		lines[0]["message_id"] != r.MessageID || lines[1]["result"] != "RATE_LIMITED" || lines[0]["key_id"] != "key-7" {
		t.Errorf("audit lines = %v", lines)
	}
	if s := logs.String(); strings.Contains(s, "Secret plans") || strings.Contains(s, "hunter2") {
		t.Errorf("the log holds the subject or the note:\n%s", s)
	}
}

// BenchmarkGetThread: get_thread of a 10-message conversation (5 in INBOX,
// 5 in Sent) in an INBOX of 500 other messages, on the sandbox, through
// the in-process MCP client.
func BenchmarkGetThread(b *testing.B) {
	env := newTestEnv(b, tools.Options{})
	e := sandboxClient(b, env)
	ctx := context.Background()
	put := func(folder, raw string) {
		b.Helper()
		if _, err := env.mail.Append(ctx, folder, nil, time.Now(), int64(len(raw)), strings.NewReader(raw)); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 500 {
		put("INBOX", fmt.Sprintf("From: x@example.test\r\nSubject: other %d\r\nMessage-ID: <other-%d@example.test>\r\n\r\nbody %d\r\n", i, i, i))
	}
	refs := ""
	for i := range 10 {
		folder := []string{"INBOX", "Sent"}[i%2]
		put(folder, fmt.Sprintf("From: p%d@example.test\r\nSubject: Re: topic\r\nMessage-ID: <th-%d@example.test>\r\nReferences:%s\r\n"+
			"Date: Mon, 01 Jan 2024 10:%02d:00 +0000\r\n\r\nmessage %d of the thread\r\n", i%2, i, refs, i, i))
		refs += fmt.Sprintf(" <th-%d@example.test>", i)
	}
	var found tools.SearchResult
	e.call(b, "search_emails", map[string]any{"subject": "Re: topic", "limit": 1}, &found)
	first := found.Messages[0].UID // the newest of INBOX's five
	b.ReportAllocs()
	for b.Loop() {
		var th tools.ThreadResult
		e.call(b, "get_thread", map[string]any{"uid": first}, &th)
		if th.Total != 10 {
			b.Fatalf("thread of %d messages, want 10", th.Total)
		}
	}
}

// TestGetThreadBounded: a chain linked only by In-Reply-To needs a round
// per message; past 10 rounds get_thread stops, returns what it found and
// says the thread is incomplete.
func TestGetThreadBounded(t *testing.T) {
	acct, e, _ := threadEnv(t)
	folder := acct.Folder("chain")
	acct.CreateFolder(t, folder)
	base := uniqueID(t, "chain")
	var first uint32
	for i := range 13 {
		raw := fmt.Sprintf("From: p@example.test\r\nSubject: chain\r\nMessage-ID: <%d.%s>\r\nDate: Mon, 01 Jan 2024 10:%02d:00 +0000\r\n", i, base, i)
		if i > 0 {
			raw += fmt.Sprintf("In-Reply-To: <%d.%s>\r\n", i-1, base)
		}
		uid := acct.Append(t, folder, []byte(raw+"\r\nlink "+fmt.Sprint(i)+"\r\n"))
		if i == 0 {
			first = uid
		}
	}
	var th tools.ThreadResult
	e.call(t, "get_thread", map[string]any{"uid": first, "folder": folder}, &th)
	if !th.Incomplete || th.Total != 11 || th.Messages[0].Preview != "link 0" || th.Messages[10].Preview != "link 10" {
		t.Errorf("get_thread of a 13-link chain = total %d incomplete %v, want the first 11 and incomplete", th.Total, th.Incomplete)
	}
	var mid tools.ThreadResult
	e.call(t, "get_thread", map[string]any{"uid": first + 6, "folder": folder}, &mid)
	if mid.Incomplete || mid.Total != 13 {
		t.Errorf("get_thread from the middle = total %d incomplete %v, want all 13", mid.Total, mid.Incomplete)
	}
}

// TestForwardInlineKeepsAttachedMessage: a message/rfc822 attachment of the
// original is re-attached as it is (not base64), byte for byte.
func TestForwardInlineKeepsAttachedMessage(t *testing.T) {
	acct, e, rl := threadEnv(t)
	inner := "From: inner@example.test\r\nSubject: the inner one\r\nMessage-ID: <" + uniqueID(t, "inner") + ">\r\n\r\ninner body line\r\n"
	raw := "From: s@example.test\r\nSubject: with a message\r\nMessage-ID: <" + uniqueID(t, "outer") + ">\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=\"YY\"\r\n\r\n--YY\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n" +
		"--YY\r\nContent-Type: message/rfc822\r\nContent-Disposition: attachment; filename=\"inner.eml\"\r\n\r\n" + inner + "\r\n--YY--\r\n"
	uid := acct.Append(t, "INBOX", []byte(raw))
	var r tools.ForwardResult
	e.call(t, "forward_email", map[string]any{"uid": uid, "to": "boss@example.test"}, &r)
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if r.Attachments != 1 || len(rl.got) != 1 || !bytes.Contains(rl.got[0], []byte(inner)) {
		t.Errorf("forward = %+v; the attached message is not carried as it is", r)
	}
}

// TestForwardDraft: forward_email with draft=true saves the forward in
// Drafts and sends nothing, in both modes, without $Forwarded; send_draft
// then delivers it with the three attachments byte-identical.
func TestForwardDraft(t *testing.T) {
	acct, e, rl := threadEnv(t)
	subject := "Quarterly draft " + strings.ToLower(rand.Text()[:6])
	raw, want := forwardFixture(t, acct, subject)
	uid := acct.Append(t, "INBOX", raw)
	for i, mode := range []string{"inline", "attachment"} {
		var r tools.ForwardResult
		e.call(t, "forward_email", map[string]any{"uid": uid, "to": "boss@example.test", "body": "FYI", "mode": mode, "draft": true}, &r)
		if !r.Success || r.DraftID == "" || len(r.Accepted) != 0 || r.Subject != "Fwd: "+subject {
			t.Fatalf("%s: forward_email draft=true = %+v", mode, r)
		}
		rl.mu.Lock()
		n := len(rl.got)
		rl.mu.Unlock()
		if n != i {
			t.Fatalf("%s: a draft forward reached SMTP (%d messages, want %d)", mode, n, i)
		}
		if f := acct.Flags(t, "INBOX", uid); slices.Contains(f, "$Forwarded") {
			t.Fatalf("%s: a draft forward set $Forwarded: %v", mode, f)
		}
		var sent tools.SendDraftResult
		e.call(t, "send_draft", map[string]any{"draft_id": r.DraftID}, &sent)
		if !sent.Success || !sent.DraftRemoved {
			t.Fatalf("%s: send_draft = %+v", mode, sent)
		}
		rl.mu.Lock()
		if len(rl.got) != i+1 {
			rl.mu.Unlock()
			t.Fatalf("%s: send_draft: relay got %d messages, want %d", mode, len(rl.got), i+1)
		}
		msg := rl.got[i]
		rl.mu.Unlock()
		got, _, _ := attachmentSums(t, msg, true)
		for name, sum := range want {
			if got[name] != sum {
				t.Errorf("%s: the sent draft's %s = %s, want %s (all: %v)", mode, name, got[name], sum, got)
			}
		}
	}
}
