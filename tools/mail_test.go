package tools_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/tools"
)

// mailEnv is the mail tools over an IMAP account of mailtest: the
// in-process server, or the Dovecot of the tier (EMAIL_MCP_TEST_DOVECOT=1),
// so every test here runs against both.
type mailEnv struct {
	acct   *mailtest.Account
	client *client.Client
	base   string // EMAIL_BASE_DIR
}

func newMailEnv(t testing.TB, opts tools.Options) *mailEnv {
	t.Helper()
	return newMailEnvMax(t, opts, 10<<20)
}

// newMailEnvMax is newMailEnv with a workspace file limit of maxFile bytes.
func newMailEnvMax(t testing.TB, opts tools.Options, maxFile int64) *mailEnv {
	t.Helper()
	acct := mailtest.NewAccount(t)
	io := imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password, Security: imap.SecurityPlain, PoolSize: 2}
	mail := imap.New(io)
	t.Cleanup(func() { _ = mail.Close() })
	base := t.TempDir()
	ws, err := attachments.Open(attachments.Options{BaseDir: base, MaxFileSize: maxFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	opts.Logger = slog.New(slog.DiscardHandler)
	ts, err := tools.New(tools.Deps{Mail: mail, Files: ws}, opts)
	if err != nil {
		t.Fatal(err)
	}
	c := inProcessClient(t, ts)
	return &mailEnv{acct: acct, client: c, base: base}
}

// seed appends testdata messages to a fresh folder of the test and returns
// the folder and the UIDs, in order.
func (e *mailEnv) seed(t testing.TB, folder string, files ...string) (string, []uint32) {
	t.Helper()
	name := e.acct.Folder(folder)
	e.acct.CreateFolder(t, name)
	var uids []uint32
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join("..", "message", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		uids = append(uids, e.acct.Append(t, name, raw))
	}
	return name, uids
}

func (e *mailEnv) call(t testing.TB, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res := callTool(t, e.client, name, args)
	if out != nil {
		if res.IsError {
			t.Fatalf("%s(%v) failed: %s", name, args, res.Content[0].(mcp.TextContent).Text)
		}
		structured(t, res, out)
	}
	return res
}

// wantError calls a tool and wants an error result with the code.
func (e *mailEnv) wantError(t testing.TB, name string, args map[string]any, code mcpkit.Code) string {
	t.Helper()
	res := callTool(t, e.client, name, args)
	text := res.Content[0].(mcp.TextContent).Text
	if !res.IsError || !strings.HasPrefix(text, string(code)+": ") {
		t.Errorf("%s(%v) = %q (isError=%v), want %s", name, args, text, res.IsError, code)
	}
	return text
}

func TestSearchEmails(t *testing.T) {
	e := newMailEnv(t, tools.Options{}) // search_emails pages 50 by default (Deps.SearchPage)
	folder, uids := e.seed(t, "search", "gmail-alternative.eml", "latin1-qp.eml", "newsletter-html-only.eml", "hostile-attachments.eml")

	var all tools.SearchResult
	e.call(t, "search_emails", map[string]any{"folder": folder}, &all)
	if all.Total != 4 || len(all.Messages) != 4 || all.NextCursor != nil {
		t.Fatalf("search all = total %d, %d messages, cursor %v; want 4, 4, nil", all.Total, len(all.Messages), all.NextCursor)
	}
	if all.Messages[0].UID != uids[3] || all.Messages[3].UID != uids[0] {
		t.Errorf("order = %d..%d, want newest (%d) first", all.Messages[0].UID, all.Messages[3].UID, uids[3])
	}
	hostile := all.Messages[0]
	if !hostile.HasAttachments || hostile.Subject != "Invoice and documents" || !hostile.Unread || hostile.ID == "" {
		t.Errorf("hostile summary = %+v", hostile)
	}
	if got := all.Messages[2].Subject; got != "Grüße aus München" {
		t.Errorf("latin1 subject = %q", got)
	}

	var bySubject tools.SearchResult
	e.call(t, "search_emails", map[string]any{"folder": folder, "subject": "Grüße"}, &bySubject)
	if bySubject.Total != 1 || bySubject.Messages[0].UID != uids[1] {
		t.Errorf("subject Grüße = %+v, want only uid %d", bySubject.Messages, uids[1])
	}

	// Paging: 4 messages, 3 pages of at most 2, no gap, no overlap.
	var seen []uint32
	args := map[string]any{"folder": folder, "limit": 2}
	for page := 0; page < 3; page++ {
		var r tools.SearchResult
		e.call(t, "search_emails", args, &r)
		for _, m := range r.Messages {
			seen = append(seen, m.UID)
		}
		if r.NextCursor == nil {
			break
		}
		args["cursor"] = *r.NextCursor
	}
	if !slices.Equal(seen, []uint32{uids[3], uids[2], uids[1], uids[0]}) {
		t.Errorf("paged uids = %v, want %v reversed", seen, uids)
	}
	// A cursor belongs to its search.
	args["subject"] = "other"
	e.wantError(t, "search_emails", args, mcpkit.CodeInvalidArgument)

	e.wantError(t, "search_emails", map[string]any{"folder": e.acct.Folder("nope-missing")}, mcpkit.CodeFolderNotFound)
	e.wantError(t, "search_emails", map[string]any{"folder": folder, "since": "last week"}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "search_emails", map[string]any{"folder": folder, "limit": 500}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "search_emails", map[string]any{"folder": folder, "cursor": "garbage"}, mcpkit.CodeInvalidArgument)
}

func TestReadEmail(t *testing.T) {
	e := newMailEnv(t, tools.Options{})
	folder, uids := e.seed(t, "read", "newsletter-html-only.eml", "hostile-attachments.eml", "latin1-qp.eml")

	var r tools.ReadResult
	e.call(t, "read_email", map[string]any{"folder": folder, "uid": uids[0]}, &r)
	if r.BodyText == "" || strings.Contains(r.BodyText, "<td") || strings.Contains(r.BodyText, "{") {
		t.Errorf("HTML-only body_text is not readable text: %.300q", r.BodyText)
	}
	if r.BodyHTML != nil {
		t.Error("format=text returned body_html")
	}
	if slices.Contains(e.acct.Flags(t, folder, uids[0]), `\Seen`) {
		t.Fatal(`read_email set \Seen without mark_read`)
	}

	// The uid as a string, and windows that join up to the whole text.
	full := r.BodyText
	var got strings.Builder
	offset := 0
	for range 1000 {
		var w tools.ReadResult
		e.call(t, "read_email", map[string]any{"folder": folder, "uid": "  " + itoa(uids[0]) + " ", "max_chars": 100, "offset": offset}, &w)
		got.WriteString(w.BodyText)
		if !w.Truncated {
			break
		}
		offset = *w.NextOffset
	}
	if got.String() != full {
		t.Errorf("windows joined (%d bytes) differ from the whole body (%d bytes)", got.Len(), len(full))
	}

	var h tools.ReadResult
	e.call(t, "read_email", map[string]any{"folder": folder, "uid": uids[1], "format": "both"}, &h)
	if len(h.Attachment) != 4 || h.Attachment[0].Filename != "../../etc/passwd" || h.BodyHTML == nil {
		t.Errorf("hostile attachments = %+v (html %v)", h.Attachment, h.BodyHTML != nil)
	}
	if strings.Contains(h.Attachment[3].Filename, "\u202e") {
		t.Errorf("bidi override not removed from %q", h.Attachment[3].Filename)
	}

	var l tools.ReadResult
	e.call(t, "read_email", map[string]any{"folder": folder, "uid": l2id(t, e, folder, uids[2]), "mark_read": true}, &l)
	if !strings.Contains(l.BodyText, "München") || !strings.Contains(l.From, "Jürgen") && !strings.Contains(l.From, "ü") {
		t.Errorf("latin1 = from %q body %.100q", l.From, l.BodyText)
	}
	if !slices.Contains(e.acct.Flags(t, folder, uids[2]), `\Seen`) || !slices.Contains(l.Flags, `\Seen`) {
		t.Errorf(`mark_read did not set \Seen: %v`, l.Flags)
	}

	e.wantError(t, "read_email", map[string]any{"folder": folder, "uid": 99999}, mcpkit.CodeMessageNotFound)
	e.wantError(t, "read_email", map[string]any{"folder": folder, "uid": "msg_1_" + itoa(uids[0])}, mcpkit.CodeMessageNotFound)
	e.wantError(t, "read_email", map[string]any{"folder": folder, "uid": "abc"}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "read_email", map[string]any{"folder": folder}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "read_email", map[string]any{"folder": folder, "uid": uids[0], "format": "pdf"}, mcpkit.CodeInvalidArgument)
}

// l2id returns the id search_emails gives a uid.
func l2id(t testing.TB, e *mailEnv, folder string, uid uint32) string {
	t.Helper()
	var r tools.SearchResult
	e.call(t, "search_emails", map[string]any{"folder": folder}, &r)
	for _, m := range r.Messages {
		if m.UID == uid {
			return m.ID
		}
	}
	t.Fatalf("uid %d not found", uid)
	return ""
}

func itoa(u uint32) string { b, _ := json.Marshal(u); return string(b) }

func TestMarkEmail(t *testing.T) {
	e := newMailEnv(t, tools.Options{})
	folder, uids := e.seed(t, "mark", "gmail-alternative.eml", "latin1-qp.eml")
	var r tools.MarkResult
	e.call(t, "mark_email", map[string]any{"folder": folder, "uids": []any{uids[0], itoa(uids[1])}, "flagged": true, "read": true}, &r)
	for _, u := range uids {
		f := e.acct.Flags(t, folder, u)
		if !slices.Contains(f, `\Flagged`) || !slices.Contains(f, `\Seen`) {
			t.Errorf("uid %d flags = %v, want \\Flagged and \\Seen", u, f)
		}
		if !slices.Contains(r.Flags[itoa(u)], `\Flagged`) {
			t.Errorf("result flags[%d] = %v", u, r.Flags[itoa(u)])
		}
	}
	e.call(t, "mark_email", map[string]any{"folder": folder, "uid": uids[0], "read": false, "answered": true}, &r)
	if f := e.acct.Flags(t, folder, uids[0]); slices.Contains(f, `\Seen`) || !slices.Contains(f, `\Answered`) {
		t.Errorf("after read=false answered=true: %v", f)
	}
	text := e.wantError(t, "mark_email", map[string]any{"folder": folder, "uids": []any{uids[1], 99999}, "flagged": false}, mcpkit.CodeMessageNotFound)
	if !strings.Contains(text, "99999") {
		t.Errorf("error does not name the missing uid: %q", text)
	}
	if !slices.Contains(e.acct.Flags(t, folder, uids[1]), `\Flagged`) {
		t.Error("a failed mark_email changed a message")
	}
	e.wantError(t, "mark_email", map[string]any{"folder": folder, "uid": uids[0]}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "mark_email", map[string]any{"folder": folder, "read": true}, mcpkit.CodeInvalidArgument)
}

func TestMoveEmail(t *testing.T) {
	e := newMailEnv(t, tools.Options{})
	from, uids := e.seed(t, "move-src", "gmail-alternative.eml", "latin1-qp.eml")
	to, _ := e.seed(t, "move-dst")
	var r tools.MoveResult
	e.call(t, "move_email", map[string]any{"from_folder": from, "to_folder": to, "uid": uids[0]}, &r)
	if !r.Success || r.NewUID == nil {
		t.Fatalf("move = %+v", r)
	}
	var src, dst tools.SearchResult
	e.call(t, "search_emails", map[string]any{"folder": from}, &src)
	e.call(t, "search_emails", map[string]any{"folder": to}, &dst)
	if src.Total != 1 || dst.Total != 1 || dst.Messages[0].UID != *r.NewUID || dst.Messages[0].MessageID == "" {
		t.Errorf("after move: source %d, target %+v, new_uid %d", src.Total, dst.Messages, *r.NewUID)
	}
	e.wantError(t, "move_email", map[string]any{"from_folder": from, "to_folder": e.acct.Folder("no-such-folder"), "uid": uids[1]}, mcpkit.CodeFolderNotFound)
	e.wantError(t, "move_email", map[string]any{"from_folder": from, "to_folder": to, "uid": uids[0]}, mcpkit.CodeMessageNotFound)
	e.wantError(t, "move_email", map[string]any{"from_folder": from, "to_folder": from, "uid": uids[1]}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "move_email", map[string]any{"from_folder": from, "uid": uids[1]}, mcpkit.CodeInvalidArgument)
}

func TestDownloadAttachment(t *testing.T) {
	e := newMailEnv(t, tools.Options{})
	folder, uids := e.seed(t, "dl", "hostile-attachments.eml", "inline-image.eml")
	var r tools.DownloadResult
	e.call(t, "download_attachment", map[string]any{"folder": folder, "uid": uids[0], "attachment_index": 0}, &r)
	if r.Filename != "passwd" || r.OriginalFilename != "../../etc/passwd" || !strings.HasPrefix(r.FilePath, "attachments/email/downloads/") {
		t.Fatalf("download = %+v", r)
	}
	got, err := os.ReadFile(filepath.Join(e.base, r.FilePath))
	if err != nil || int64(len(got)) != r.SizeBytes || len(got) == 0 {
		t.Fatalf("saved file: %v, %d bytes, result says %d", err, len(got), r.SizeBytes)
	}
	var again tools.DownloadResult
	e.call(t, "download_attachment", map[string]any{"folder": folder, "uid": uids[0], "attachment_index": 0}, &again)
	if again.FilePath == r.FilePath {
		t.Errorf("second download overwrote %s", r.FilePath)
	}
	// A base64 image decodes to a PNG.
	var img tools.DownloadResult
	e.call(t, "download_attachment", map[string]any{"folder": folder, "uid": uids[1], "attachment_index": 0, "filename_override": "../x.png"}, &img)
	png, _ := os.ReadFile(filepath.Join(e.base, img.FilePath))
	if !strings.HasPrefix(string(png), "\x89PNG") || img.Filename != "x.png" {
		t.Errorf("inline image saved as %q starts %q, want a PNG named x.png", img.Filename, png[:min(8, len(png))])
	}
	e.wantError(t, "download_attachment", map[string]any{"folder": folder, "uid": uids[0], "attachment_index": 9}, mcpkit.CodeAttachmentNotFound)
	e.wantError(t, "download_attachment", map[string]any{"folder": folder, "uid": 99999, "attachment_index": 0}, mcpkit.CodeMessageNotFound)
}

func TestReadOnlyMode(t *testing.T) {
	e := newMailEnv(t, tools.Options{ReadOnly: true})
	list, err := e.client.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	for _, hidden := range []string{"mark_email", "move_email", "delete_email", "create_folder", "rename_folder", "delete_folder"} {
		if slices.Contains(names, hidden) {
			t.Errorf("read-only mode lists %s", hidden)
		}
	}
	for _, shown := range []string{"list_folders", "search_emails", "read_email", "download_attachment"} {
		if !slices.Contains(names, shown) {
			t.Errorf("read-only mode hides %s", shown)
		}
	}
	folder, uids := e.seed(t, "ro", "latin1-qp.eml")
	e.wantError(t, "read_email", map[string]any{"folder": folder, "uid": uids[0], "mark_read": true}, mcpkit.CodeReadOnly)
	if slices.Contains(e.acct.Flags(t, folder, uids[0]), `\Seen`) {
		t.Error("read-only read_email set \\Seen")
	}
}

// TestListFoldersAccount runs list_folders on the mailtest account (and so
// on Dovecot in the tier): special-use folders reported, counts right,
// non-ASCII names round-trip.
func TestListFoldersAccount(t *testing.T) {
	e := newMailEnv(t, tools.Options{})
	folder, _ := e.seed(t, "Überweisungen 2024", "latin1-qp.eml", "gmail-alternative.eml")
	e.acct.Append(t, folder, []byte("Subject: read\r\n\r\nx\r\n"), `\Seen`)
	var r tools.ListFoldersResult
	e.call(t, "list_folders", map[string]any{"include_counts": true}, &r)
	special := map[string]bool{}
	var got *tools.FolderInfo
	for i, f := range r.Folders {
		if f.SpecialUse != nil {
			special[*f.SpecialUse] = true
		}
		if f.Name == folder {
			got = &r.Folders[i]
		}
	}
	for _, su := range []string{"sent", "drafts", "trash", "junk"} {
		if !special[su] {
			t.Errorf("no %s folder in %+v", su, r.Folders)
		}
	}
	if got == nil || got.Messages == nil || *got.Messages != 3 || got.Unseen == nil || *got.Unseen != 2 {
		t.Errorf("folder %q = %+v, want 3 messages, 2 unseen", folder, got)
	}
	var plain tools.ListFoldersResult
	e.call(t, "list_folders", map[string]any{}, &plain)
	for _, f := range plain.Folders {
		if f.Messages != nil {
			t.Errorf("counts without include_counts: %+v", f)
		}
	}
}

// attachmentMessage is a mail with one attachment, its body as given.
// Its line ends become CRLF; those already CRLF stay so.
func attachmentMessage(filename, encoding, body string) []byte {
	return []byte(crlf(`From: a@example.com
To: b@example.com
Subject: att
Message-ID: <one-att@example.com>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="B"

--B
Content-Type: text/plain

hi
--B
Content-Type: application/octet-stream
Content-Disposition: attachment; filename="` + filename + `"
Content-Transfer-Encoding: ` + encoding + `

` + body + `
--B--
`))
}

// crlf turns every line end of s into CRLF, once.
func crlf(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// TestDownloadOverLimitOneLineBase64: an attachment written as one base64
// line slips past the size estimate from the encoded size; it still ends in
// ATTACHMENT_TOO_LARGE and leaves no file in downloads/.
func TestDownloadOverLimitOneLineBase64(t *testing.T) {
	const limit = 1000
	e := newMailEnvMax(t, tools.Options{}, limit)
	folder := e.acct.Folder("big-att")
	e.acct.CreateFolder(t, folder)
	payload := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("x", 1020))) // one line, no breaks
	uid := e.acct.Append(t, folder, attachmentMessage("big.bin", "base64", payload))
	res := callTool(t, e.client, "download_attachment", map[string]any{"folder": folder, "uid": uid, "attachment_index": 0})
	text := res.Content[0].(mcp.TextContent).Text
	if !res.IsError || !strings.HasPrefix(text, string(mcpkit.CodeAttachmentTooLarge)+": ") {
		t.Errorf("download of 1020 bytes with limit %d = %q (isError=%v), want ATTACHMENT_TOO_LARGE", limit, text, res.IsError)
	}
	ents, _ := os.ReadDir(filepath.Join(e.base, "attachments", "email", "downloads"))
	for _, en := range ents {
		t.Errorf("downloads/ holds %q after a failed download", en.Name())
	}
}

// mimeMessage is a mail with the given Content-Type and body.
func mimeMessage(subject, ctype, body string) []byte {
	return []byte("From: a@example.com\r\nTo: b@example.com\r\nSubject: " + subject +
		"\r\nMessage-ID: <" + subject + "@x>\r\nDate: Tue, 02 Jan 2024 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: " +
		ctype + "\r\n\r\n" + body)
}

// search_emails with unread/flagged/has_attachments: the next_cursor of a
// page must be accepted for the next page of the very same search
// (DESIGN.md: search_emails ... cursor, next_cursor).
func TestSearchCursorWithFlagFilters(t *testing.T) {
	e := newMailEnv(t, tools.Options{}) // search_emails pages 50 by default (Deps.SearchPage)
	folder, uids := e.seed(t, "cursor-flags", "gmail-alternative.eml", "latin1-qp.eml", "newsletter-html-only.eml")
	for _, filter := range []string{"unread", "flagged", "has_attachments"} {
		val := filter == "unread" // unread=true, flagged=false, has_attachments=false all match the 3
		args := map[string]any{"folder": folder, filter: val, "limit": 1}
		var seen []uint32
		for page := 0; page < 5; page++ {
			res := callTool(t, e.client, "search_emails", args)
			if res.IsError {
				t.Errorf("%s=%v: page %d of the same search refused: %s", filter, val, page+1, res.Content[0].(mcp.TextContent).Text)
				break
			}
			var r tools.SearchResult
			structured(t, res, &r)
			for _, m := range r.Messages {
				seen = append(seen, m.UID)
			}
			if r.NextCursor == nil {
				break
			}
			args["cursor"] = *r.NextCursor
		}
		if len(seen) != len(uids) {
			t.Errorf("%s=%v: paged %v, want all of %v", filter, val, seen, uids)
		}
	}
}

// read_email must show the same body for the same parts whether the message
// is small (parsed whole) or over readPrefix (1 MiB, text parts fetched on
// their own): format=flowed is unwrapped (RFC 3676) and an HTML part
// without a charset parameter is read in its <meta charset> in both paths.
func TestReadBigMessageSameBody(t *testing.T) {
	e := newMailEnv(t, tools.Options{})
	folder, _ := e.seed(t, "big-body")
	parts := func(attachment string) string {
		return "--b\r\nContent-Type: text/plain; charset=utf-8; format=flowed\r\n\r\nPlease confirm \r\nyour address.\r\n" +
			"--b\r\nContent-Type: text/html\r\n\r\n<meta charset=\"windows-1251\"><p>\xcf\xf0\xe8\xe2\xe5\xf2</p>\r\n" +
			"--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=data.bin\r\n\r\n" + attachment + "\r\n--b--\r\n"
	}
	line := strings.Repeat("A", 76) + "\r\n"
	small := e.acct.Append(t, folder, mimeMessage("small", "multipart/mixed; boundary=b", parts(line)))
	big := e.acct.Append(t, folder, mimeMessage("big", "multipart/mixed; boundary=b", parts(strings.Repeat(line, 15000))))
	var s, b tools.ReadResult
	e.call(t, "read_email", map[string]any{"folder": folder, "uid": small, "format": "both"}, &s)
	e.call(t, "read_email", map[string]any{"folder": folder, "uid": big, "format": "both"}, &b)
	if s.BodyText != "Please confirm your address." || *s.BodyHTML != "<meta charset=\"windows-1251\"><p>Привет</p>" {
		t.Fatalf("small message: text %q html %q", s.BodyText, *s.BodyHTML)
	}
	if b.BodyText != s.BodyText {
		t.Errorf("big message body_text = %q, small = %q", b.BodyText, s.BodyText)
	}
	if *b.BodyHTML != *s.BodyHTML {
		t.Errorf("big message body_html = %q, small = %q", *b.BodyHTML, *s.BodyHTML)
	}
}

// RFC 2231 §4 allows any charset in name*=charset'lang'%XX; a file name
// sent in ISO-8859-1 must be listed (decoded), not dropped.
// imapmemserver's own BODYSTRUCTURE drops such a parameter (go-message), so
// in-process a scripted server sends it as Dovecot does.
func TestAttachmentNonUTF8Name(t *testing.T) {
	const want = "Rechnung März.pdf"
	if !mailtest.Dovecot() {
		host, port := mailtest.ScriptedIMAP(t, mailtest.OneMessage{BodyStructure: `BODYSTRUCTURE (("text" "plain" ("charset" "utf-8") NIL NIL "7bit" 14 1 NIL NIL NIL NIL)` +
			`("application" "pdf" NIL NIL NIL "base64" 8 NIL ("attachment" ("filename*" "iso-8859-1''Rechnung%20M%E4rz.pdf")) NIL NIL) "mixed" ("boundary" "b") NIL NIL NIL)`,
			Part: "BODY[1] {14}\r\nsee attached\r\n"})
		mail := imap.New(imap.Options{Host: host, Port: port, Username: "u", Password: "p", Security: imap.SecurityPlain, PoolSize: 1})
		t.Cleanup(func() { _ = mail.Close() })
		ts, err := tools.New(tools.Deps{Mail: mail}, tools.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		e := &mailEnv{client: inProcessClient(t, ts)}
		var r tools.ReadResult
		e.call(t, "read_email", map[string]any{"uid": 5}, &r)
		if len(r.Attachment) != 1 || r.Attachment[0].Filename != want {
			t.Errorf("attachments = %+v, want one named %q", r.Attachment, want)
		}
		return
	}
	e := newMailEnv(t, tools.Options{})
	folder, _ := e.seed(t, "latin1-name")
	body := "--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nsee attached\r\n" +
		"--b\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n" +
		"Content-Disposition: attachment; filename*=iso-8859-1''Rechnung%20M%E4rz.pdf\r\n\r\nJVBERi0=\r\n--b--\r\n"
	uid := e.acct.Append(t, folder, mimeMessage("invoice", "multipart/mixed; boundary=b", body))
	var r tools.ReadResult
	e.call(t, "read_email", map[string]any{"folder": folder, "uid": uid}, &r)
	if len(r.Attachment) != 1 || r.Attachment[0].Filename != "Rechnung März.pdf" {
		t.Errorf("attachments = %+v, want one named %q", r.Attachment, "Rechnung März.pdf")
	}
}
