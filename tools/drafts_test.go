package tools_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/tools"
)

// draftEnv is the mail and send tools over an account of mailtest (the
// in-process server, or Dovecot on the tier) with a recording submission
// server in front of it: what send_draft transmits can be compared with
// the draft's bytes.
type draftEnv struct {
	*mailEnv
	relay *relay
	mail  *imap.Client
}

func newDraftEnv(t *testing.T, send tools.SendOptions) *draftEnv {
	t.Helper()
	acct := mailtest.NewAccount(t)
	rl := &relay{t: t, acct: acct}
	mail, sender := relayClients(t, acct, rl)
	base := t.TempDir()
	ws, err := attachments.Open(attachments.Options{BaseDir: base, MaxFileSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	send.From = acct.Username
	if send.SaveSent == "" {
		send.SaveSent = "auto"
	}
	ts, err := tools.New(tools.Deps{Mail: mail, Sent: mail, Sender: sender, Files: ws, Send: send},
		tools.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return &draftEnv{mailEnv: &mailEnv{acct: acct, client: inProcessClient(t, ts), base: base}, relay: rl, mail: mail}
}

// unique is a subject no other test uses (the Dovecot tier may share one
// Drafts folder between tests).
func unique(what string) string { return what + " " + rand.Text()[:10] }

// drafts searches the Drafts folder for subject.
func (e *draftEnv) drafts(t *testing.T, folder, subject string) []tools.MessageSummary {
	t.Helper()
	var r tools.SearchResult
	e.call(t, "search_emails", map[string]any{"folder": folder, "subject": subject}, &r)
	return r.Messages
}

// raw is the stored bytes of uid in folder.
func (e *draftEnv) raw(t *testing.T, folder string, uid uint32) []byte {
	t.Helper()
	m, err := e.mail.FetchMessage(context.Background(), folder, uid, 0)
	if err != nil {
		t.Fatalf("FetchMessage(%q, %d) = %v", folder, uid, err)
	}
	return m.Raw
}

// TestDraftLifecycle saves a draft with a Bcc and an attachment, replaces
// it, sends it and checks each step on the server: a \Draft in the Drafts
// folder, no old copy after the update, the same bytes transmitted (but
// the Bcc field), the Bcc in the envelope, the Sent copy, no draft after
// the send.
func TestDraftLifecycle(t *testing.T) {
	e := newDraftEnv(t, tools.SendOptions{FromName: "Drafter"})
	up := filepath.Join(e.base, "attachments", "email", "uploads")
	if err := os.WriteFile(filepath.Join(up, "notes.txt"), []byte("attached notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	subject := unique("Quarterly plan")
	var saved tools.DraftResult
	e.call(t, "save_draft", map[string]any{"to": "Bob <bob@example.test>", "bcc": "hidden@example.test",
		"subject": subject, "body": "first version", "attachment_paths": []any{"uploads/notes.txt"}}, &saved)
	if !saved.Success || saved.DraftID == "" || saved.UID == nil || saved.MessageID == "" || len(saved.Attachments) != 1 {
		t.Fatalf("save_draft = %+v", saved)
	}
	folder := saved.Folder
	if flags := e.acct.Flags(t, folder, *saved.UID); !slices.Contains(flags, `\Draft`) {
		t.Errorf("draft flags = %v, want \\Draft", flags)
	}
	first := e.raw(t, folder, *saved.UID)
	if !bytes.Contains(first, []byte("\r\nBcc: ")) || !bytes.Contains(first, []byte("hidden@example.test")) || !bytes.Contains(first, []byte("notes.txt")) {
		t.Errorf("the draft lacks its Bcc or attachment:\n%.800s", first)
	}

	var updated tools.DraftResult
	e.call(t, "update_draft", map[string]any{"draft_id": saved.DraftID, "to": "Bob <bob@example.test>", "bcc": "hidden@example.test",
		"subject": subject + " v2", "body": "second version"}, &updated)
	if updated.DraftID == "" || updated.DraftID == saved.DraftID || updated.Replaced != saved.DraftID {
		t.Fatalf("update_draft = %+v (saved %+v)", updated, saved)
	}
	if got := e.drafts(t, folder, subject); len(got) != 1 || got[0].UID != *updated.UID {
		t.Fatalf("after update_draft, Drafts holds %+v, want only uid %d", got, *updated.UID)
	}
	e.wantError(t, "update_draft", map[string]any{"draft_id": saved.DraftID, "body": "x"}, mcpkit.CodeMessageNotFound)
	stored := e.raw(t, folder, *updated.UID)

	var sent tools.SendDraftResult
	e.call(t, "send_draft", map[string]any{"draft_id": updated.DraftID}, &sent)
	if !sent.Success || !sent.DraftRemoved || sent.MessageID != updated.MessageID || len(sent.Accepted) != 2 {
		t.Errorf("send_draft = %+v", sent)
	}
	e.relay.mu.Lock()
	if len(e.relay.got) != 1 {
		t.Fatalf("relay received %d messages, want 1", len(e.relay.got))
	}
	got, env := e.relay.got[0], e.relay.envs[0]
	e.relay.mu.Unlock()
	want := withoutBcc(t, stored)
	if !bytes.HasSuffix(want, []byte("\r\n")) {
		// SMTP ends the data with CRLF before the dot: a message whose
		// last line has none (the composer writes none) gets one.
		want = append(want, "\r\n"...)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("transmitted bytes differ from the draft's (Bcc removed):\n got %.600q\nwant %.600q", got, want)
	}
	if !slices.Contains(env, "hidden@example.test") || !slices.Contains(env, "bob@example.test") || bytes.Contains(got, []byte("hidden@")) {
		t.Errorf("envelope %q, message %.300q: want the Bcc in the envelope only", env, got)
	}
	if left := e.drafts(t, folder, subject); len(left) != 0 {
		t.Errorf("after send_draft, Drafts still holds %+v", left)
	}
	e.wantError(t, "send_draft", map[string]any{"draft_id": updated.DraftID}, mcpkit.CodeMessageNotFound)
	if sent.SentCopy != "saved" {
		t.Errorf("sent_copy = %q, want saved", sent.SentCopy)
	} else {
		copies := e.drafts(t, e.acct.Folder("Sent"), subject)
		if len(copies) != 1 || !bytes.Equal(e.raw(t, e.acct.Folder("Sent"), copies[0].UID), withoutBcc(t, stored)) {
			t.Errorf("Sent copy: %+v, want one with the transmitted bytes", copies)
		}
	}
}

// withoutBcc is raw with its header's Bcc field (one line, as the
// composer writes it for a short list) cut out.
func withoutBcc(t *testing.T, raw []byte) []byte {
	t.Helper()
	i := bytes.Index(raw, []byte("\r\nBcc: "))
	end := bytes.Index(raw, []byte("\r\n\r\n"))
	if i < 0 || i > end {
		t.Fatalf("no Bcc in the header of %.300q", raw)
	}
	j := bytes.Index(raw[i+2:], []byte("\r\n")) + i + 2
	return append(append([]byte{}, raw[:i]...), raw[j:]...)
}

// TestDeleteDraft removes a draft, and only from the Drafts folder.
func TestDeleteDraft(t *testing.T) {
	e := newDraftEnv(t, tools.SendOptions{})
	subject := unique("Throwaway")
	var saved tools.DraftResult
	e.call(t, "save_draft", map[string]any{"subject": subject}, &saved)
	var del tools.DeleteDraftResult
	e.call(t, "delete_draft", map[string]any{"draft_id": saved.DraftID}, &del)
	if !del.Success || del.DraftID != saved.DraftID {
		t.Errorf("delete_draft = %+v", del)
	}
	if left := e.drafts(t, saved.Folder, subject); len(left) != 0 {
		t.Errorf("after delete_draft, Drafts holds %+v", left)
	}
	e.wantError(t, "delete_draft", map[string]any{"draft_id": saved.DraftID}, mcpkit.CodeMessageNotFound)
	// An id of another folder is refused: its UIDVALIDITY is not Drafts'.
	inbox := e.acct.Append(t, "INBOX", []byte("Subject: keep me\r\n\r\nbody\r\n"))
	v, err := e.mail.UIDValidity(context.Background(), "INBOX")
	if err != nil {
		t.Fatal(err)
	}
	if dv, _ := e.mail.UIDValidity(context.Background(), saved.Folder); dv != v {
		e.wantError(t, "delete_draft", map[string]any{"draft_id": "msg_" + itoa(v) + "_" + itoa(inbox)}, mcpkit.CodeMessageNotFound)
	}
	if flags := e.acct.Flags(t, "INBOX", inbox); slices.Contains(flags, `\Deleted`) {
		t.Errorf("an INBOX message was marked deleted: %v", flags)
	}
}

// TestSendDraftGuardrails: the allow-list, the recipient cap and the
// hourly cap apply to send_draft; a refused draft stays, nothing is sent.
func TestSendDraftGuardrails(t *testing.T) {
	e := newDraftEnv(t, tools.SendOptions{AllowedRecipients: []string{"example.test"}, MaxPerHour: 1})
	var d tools.DraftResult
	e.call(t, "save_draft", map[string]any{"to": "ok@example.test", "bcc": "spy@elsewhere.test", "subject": unique("Guarded")}, &d)
	e.wantError(t, "send_draft", map[string]any{"draft_id": d.DraftID}, mcpkit.CodeRecipientNotAllowed)

	// A draft another client wrote, with 101 recipients.
	var to []string
	for i := range 101 {
		to = append(to, "r"+itoa(uint32(i))+"@example.test")
	}
	big := "From: " + e.acct.Username + "\r\nTo: " + strings.Join(to, ", ") + "\r\nSubject: many\r\nMessage-ID: <many@example.test>\r\n\r\nhi\r\n"
	bigUID := e.acct.Append(t, d.Folder, []byte(big), `\Draft`)
	e.wantError(t, "send_draft", map[string]any{"draft_id": bigUID}, mcpkit.CodeInvalidArgument)
	// Someone else's From is never sent.
	spoof := e.acct.Append(t, d.Folder, []byte("From: boss@example.test\r\nTo: ok@example.test\r\nSubject: s\r\n\r\nhi\r\n"), `\Draft`)
	e.wantError(t, "send_draft", map[string]any{"draft_id": spoof}, mcpkit.CodeInvalidArgument)

	var ok1, ok2 tools.DraftResult
	e.call(t, "save_draft", map[string]any{"to": "ok@example.test", "subject": unique("One")}, &ok1)
	e.call(t, "save_draft", map[string]any{"to": "ok@example.test", "subject": unique("Two")}, &ok2)
	e.call(t, "send_draft", map[string]any{"draft_id": ok1.DraftID}, &tools.SendDraftResult{})
	e.wantError(t, "send_draft", map[string]any{"draft_id": ok2.DraftID}, mcpkit.CodeRateLimited)

	e.relay.mu.Lock()
	n := len(e.relay.got)
	e.relay.mu.Unlock()
	if n != 1 {
		t.Errorf("the relay received %d messages, want 1 (only the allowed send under the cap)", n)
	}
	for _, uid := range []uint32{*d.UID, bigUID, spoof, *ok2.UID} {
		if _, err := e.mail.FetchMessage(context.Background(), d.Folder, uid, 1); err != nil {
			t.Errorf("refused draft %d is gone: %v", uid, err)
		}
	}
}

// TestReplyDraft: reply_email with draft=true saves a threaded reply
// instead of sending it; save_draft's reply_to_uid threads the same way;
// send_draft then sends it with its threading.
func TestReplyDraft(t *testing.T) {
	e := newDraftEnv(t, tools.SendOptions{})
	orig := "From: Alice <alice@example.test>\r\nTo: " + e.acct.Username + "\r\nSubject: Lunch plans\r\nMessage-ID: <orig-2@example.test>\r\n" +
		"References: <orig-1@example.test>\r\nDate: Tue, 19 Mar 2024 10:30:00 +0000\r\n\r\nNoon?\r\n"
	uid := e.acct.Append(t, "INBOX", []byte(orig))
	var r tools.ReplyResult
	e.call(t, "reply_email", map[string]any{"uid": uid, "body": "Noon works.", "draft": true}, &r)
	if r.DraftID == "" || r.Subject != "Re: Lunch plans" || len(r.To) != 1 || len(r.Accepted) != 0 {
		t.Fatalf("reply_email draft=true = %+v", r)
	}
	if flags := e.acct.Flags(t, "INBOX", uid); slices.Contains(flags, `\Answered`) {
		t.Error("a reply saved as a draft marked the original answered")
	}
	var s tools.DraftResult
	e.call(t, "save_draft", map[string]any{"reply_to_uid": uid, "body": "Or one?"}, &s)
	for _, id := range []string{r.DraftID, s.DraftID} {
		var read tools.ReadResult
		e.call(t, "read_email", map[string]any{"folder": s.Folder, "uid": id}, &read)
		if read.InReplyTo != "orig-2@example.test" || len(read.References) != 2 || read.Subject != "Re: Lunch plans" ||
			len(read.To) != 1 || read.To[0] != "Alice <alice@example.test>" {
			t.Errorf("draft %s: in_reply_to %q references %v subject %q to %v", id, read.InReplyTo, read.References, read.Subject, read.To)
		}
	}
	e.relay.mu.Lock()
	n := len(e.relay.got)
	e.relay.mu.Unlock()
	if n != 0 {
		t.Fatalf("drafting sent %d messages", n)
	}
	// update_draft without reply_to_uid keeps the threading.
	var u tools.DraftResult
	e.call(t, "update_draft", map[string]any{"draft_id": s.DraftID, "to": "alice@example.test", "subject": "Re: Lunch plans", "body": "One, then."}, &u)
	e.call(t, "send_draft", map[string]any{"draft_id": u.DraftID}, &tools.SendDraftResult{})
	e.relay.mu.Lock()
	got := e.relay.got[0]
	e.relay.mu.Unlock()
	if !bytes.Contains(got, []byte("In-Reply-To: <orig-2@example.test>")) || !bytes.Contains(got, []byte("<orig-1@example.test> <orig-2@example.test>")) {
		t.Errorf("sent reply lost its threading:\n%.600s", got)
	}
	if flags := e.acct.Flags(t, "INBOX", uid); !slices.Contains(flags, `\Answered`) {
		t.Errorf("the original's flags after send_draft of its reply = %v, want \\Answered", flags)
	}
}

// TestDraftOpensInIMAPClient reads a draft the server saved with Python's
// imaplib, a real IMAP client independent of ours: it is a \Draft in the
// folder LIST marks \Drafts (or named Drafts), with the right headers.
func TestDraftOpensInIMAPClient(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed for this test (a real IMAP client): ", err)
	}
	e := newDraftEnv(t, tools.SendOptions{FromName: "Drafter"})
	subject := unique("Seen by imaplib")
	var d tools.DraftResult
	e.call(t, "save_draft", map[string]any{"to": "Bob <bob@example.test>", "cc": "carol@example.test", "bcc": "hidden@example.test",
		"subject": subject, "body": "hello from a draft"}, &d)
	cmd := exec.Command(py, "-c", imaplibScript, e.acct.Host, itoa(uint32(e.acct.Port)), e.acct.Username, e.acct.Password, subject)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("imaplib: %v\n%s", err, out)
	}
	var got struct {
		Folder  string   `json:"folder"`
		Special bool     `json:"special"`
		Flags   string   `json:"flags"`
		Headers []string `json:"headers"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("imaplib output %q: %v", out, err)
	}
	if got.Folder != d.Folder || !strings.Contains(strings.ToLower(got.Flags), `\draft`) {
		t.Errorf("imaplib found the draft in %q with flags %q, want %q and \\Draft", got.Folder, got.Flags, d.Folder)
	}
	header := strings.Join(got.Headers, "\n")
	for _, want := range []string{`From: "Drafter" <` + e.acct.Username + ">", `To: "Bob" <bob@example.test>`, "Cc: <carol@example.test>",
		"Bcc: <hidden@example.test>", "Subject: " + subject, "Message-Id: <" + d.MessageID + ">"} {
		if !slices.Contains(got.Headers, want) {
			t.Errorf("imaplib header lacks %q:\n%s", want, header)
		}
	}
}

// imaplibScript finds the Drafts folder by LIST (\Drafts, else the name),
// searches it for the subject and prints the folder, the flags and the
// header lines of the one match as JSON.
const imaplibScript = `
import imaplib, json, re, sys
host, port, user, pw, subject = sys.argv[1:6]
c = imaplib.IMAP4(host, int(port))
c.login(user, pw)
typ, lines = c.list()
folder, special = None, False
for l in lines:
    l = l.decode()
    m = re.match(r'\((.*?)\) (?:"[^"]*"|NIL) (.*)$', l)
    name = m.group(2).strip('"')
    if '\\Drafts' in m.group(1):
        folder, special = name, True
        break
    if name.lower() == 'drafts' and folder is None:
        folder = name
c.select('"' + folder + '"', readonly=True)
typ, data = c.uid('search', None, 'SUBJECT', '"' + subject + '"')
uids = data[0].split()
assert len(uids) == 1, uids
typ, data = c.uid('fetch', uids[0], '(FLAGS BODY.PEEK[HEADER])')
flags = data[0][0].decode()
headers = data[0][1].decode().split('\r\n')
print(json.dumps({'folder': folder, 'special': special, 'flags': flags, 'headers': headers}))
c.logout()
`

// TestDraftSandbox runs a draft through the embedded sandbox: what its
// SMTP side received (filed in its INBOX, behind its own trace fields) is
// the draft's bytes without the Bcc, and no draft is left.
func TestDraftSandbox(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := sandboxClient(t, env)
	subject := unique("Sandbox draft")
	var d tools.DraftResult
	e.call(t, "save_draft", map[string]any{"to": "bob@example.test", "bcc": "hidden@example.test", "subject": subject, "body": "line one\nline two\n"}, &d)
	if d.Folder != "Drafts" || d.UID == nil {
		t.Fatalf("save_draft = %+v, want the sandbox's Drafts folder", d)
	}
	stored := []byte(rawMessage(t, env, d.Folder, *d.UID))
	var s tools.SendDraftResult
	e.call(t, "send_draft", map[string]any{"draft_id": d.DraftID}, &s)
	if !s.DraftRemoved || s.SentCopy != "saved" {
		t.Errorf("send_draft = %+v", s)
	}
	got := findOne(t, e, "INBOX", subject)
	delivered := []byte(rawMessage(t, env, "INBOX", got.UID))
	want := withoutBcc(t, stored)
	if !bytes.HasSuffix(delivered, want) || !bytes.Contains(delivered[:len(delivered)-len(want)], []byte("hidden@example.test")) {
		t.Errorf("delivered:\n%s\nwant it to end with the draft without Bcc:\n%s\n(and the Bcc in its envelope fields)", delivered, want)
	}
	var r tools.SearchResult
	e.call(t, "search_emails", map[string]any{"folder": "Drafts"}, &r)
	if r.Total != 0 {
		t.Errorf("Drafts holds %d messages after send_draft, want 0", r.Total)
	}
	sent := findOne(t, e, "Sent", subject)
	if !bytes.Equal([]byte(rawMessage(t, env, "Sent", sent.UID)), want) {
		t.Error("the Sent copy is not the transmitted bytes")
	}
}

// TestReadOnlyHidesDrafts: read-only mode lists no draft tool, nor
// reply_email (which can save one).
func TestReadOnlyHidesDrafts(t *testing.T) {
	env := newTestEnv(t, tools.Options{ReadOnly: true})
	names := env.tools.ToolNames()
	for _, hidden := range []string{"save_draft", "update_draft", "send_draft", "delete_draft", "reply_email"} {
		if slices.Contains(names, hidden) {
			t.Errorf("read-only mode lists %s", hidden)
		}
	}
	full := newTestEnv(t, tools.Options{}).tools.ToolNames()
	for _, shown := range []string{"save_draft", "update_draft", "send_draft", "delete_draft"} {
		if !slices.Contains(full, shown) {
			t.Errorf("%s is not served", shown)
		}
	}
}

// TestDraftAudit: every draft tool writes one audit line, with the
// draft's id but no subject, body or address.
func TestDraftAudit(t *testing.T) {
	var logs syncBuffer
	env := newTestEnv(t, tools.Options{})
	e := guardedClient(t, env, tools.SendOptions{}, tools.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	const subject, body = "Secret draft plan", "the draft says hunter2"
	var d, u tools.DraftResult
	e.call(t, "save_draft", map[string]any{"to": "a@example.test", "bcc": "b@example.test", "subject": subject, "body": body}, &d)
	e.call(t, "update_draft", map[string]any{"draft_id": d.DraftID, "to": "a@example.test", "subject": subject, "body": body}, &u)
	e.call(t, "send_draft", map[string]any{"draft_id": u.DraftID}, &tools.SendDraftResult{})
	e.wantError(t, "delete_draft", map[string]any{"draft_id": u.DraftID}, mcpkit.CodeMessageNotFound)
	lines := auditLines(t, logs.String())
	want := []struct{ tool, result string }{{"save_draft", "ok"}, {"update_draft", "ok"}, {"send_draft", "ok"}, {"delete_draft", "MESSAGE_NOT_FOUND"}}
	if len(lines) != len(want) {
		t.Fatalf("%d audit lines, want %d:\n%s", len(lines), len(want), logs.String())
	}
	for i, w := range want {
		if lines[i]["tool"] != w.tool || lines[i]["result"] != w.result {
			t.Errorf("audit line %d = %v, want tool %s result %s", i, lines[i], w.tool, w.result)
		}
	}
	if lines[0]["new_draft_id"] != d.DraftID || lines[1]["draft_id"] != d.DraftID || lines[2]["accepted"] != float64(1) {
		t.Errorf("audit lines = %v, want the draft ids and 1 accepted (update_draft dropped the bcc)", lines)
	}
	for _, secret := range []string{subject, body, "hunter2", "a@example.test", "b@example.test"} {
		for _, l := range lines {
			if b, _ := json.Marshal(l); strings.Contains(string(b), secret) {
				t.Errorf("audit line %s contains %q", b, secret)
			}
		}
	}
}

// TestSendBigDraft sends a draft over read_email's 1 MiB prefix: all of
// it goes out, not the prefix.
func TestSendBigDraft(t *testing.T) {
	e := newDraftEnv(t, tools.SendOptions{})
	body := strings.Repeat("a line of a long draft, with words in it\n", 40000) // 1.6 MB
	var d tools.DraftResult
	e.call(t, "save_draft", map[string]any{"to": "bob@example.test", "subject": unique("Big"), "body": body}, &d)
	stored := e.raw(t, d.Folder, *d.UID)
	e.call(t, "send_draft", map[string]any{"draft_id": d.DraftID}, &tools.SendDraftResult{})
	e.relay.mu.Lock()
	defer e.relay.mu.Unlock()
	if len(e.relay.got) != 1 || len(stored) < 1<<20 || !bytes.Equal(bytes.TrimSuffix(e.relay.got[0], []byte("\r\n")), bytes.TrimSuffix(stored, []byte("\r\n"))) {
		t.Errorf("relay got %d messages, the first of %d bytes; want the draft's %d bytes", len(e.relay.got), len(e.relay.got[0]), len(stored))
	}
}
