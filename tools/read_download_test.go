package tools_test

import (
	"encoding/base64"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/tools"
)

// qpBinary quoted-printable-encodes n bytes of 0xE9 ("=E9" each), in lines
// of 75 characters ended by a soft line break (RFC 2045 §6.7 rule 5).
func qpBinary(n int) string {
	var b strings.Builder
	line := 0
	for range n {
		if line+3 > 75 {
			b.WriteString("=\r\n")
			line = 0
		}
		b.WriteString("=E9")
		line += 3
	}
	return b.String()
}

// a quoted-printable attachment of 600 decoded bytes is under a 1000
// byte MAX_ATTACHMENT_SIZE limit; its encoded form (about 1850 bytes) is
// not. download_attachment must save it (DESIGN.md: the limit is on the
// attachment), not refuse it as "about 1850 bytes".
func TestDownloadQPUnderLimit(t *testing.T) {
	const limit = 1000
	e := newMailEnvMax(t, tools.Options{}, limit)
	folder := e.acct.Folder("rd-qp")
	e.acct.CreateFolder(t, folder)
	uid := e.acct.Append(t, folder, attachmentMessage("latin.bin", "quoted-printable", qpBinary(600)))
	res := callTool(t, e.client, "download_attachment", map[string]any{"folder": folder, "uid": uid, "attachment_index": 0})
	if res.IsError {
		t.Fatalf("download of a 600-byte attachment with a %d-byte limit failed: %s", limit, res.Content[0].(mcp.TextContent).Text)
	}
	var r tools.DownloadResult
	structured(t, res, &r)
	got, _ := os.ReadFile(filepath.Join(e.base, r.FilePath))
	if len(got) != 600 || r.SizeBytes != 600 {
		t.Errorf("saved %d bytes, result says %d, want 600", len(got), r.SizeBytes)
	}
}

// the same for base64 in 64-character lines (PEM style, RFC 1421): 999
// bytes under a 1000-byte limit are refused as "about 1017 bytes".
func TestDownloadBase64ShortLinesUnderLimit(t *testing.T) {
	const limit = 1000
	e := newMailEnvMax(t, tools.Options{}, limit)
	folder := e.acct.Folder("rd-b64-64")
	e.acct.CreateFolder(t, folder)
	enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("y", 999)))
	var lines []string
	for len(enc) > 64 {
		lines, enc = append(lines, enc[:64]), enc[64:]
	}
	lines = append(lines, enc)
	uid := e.acct.Append(t, folder, attachmentMessage("pem.bin", "base64", strings.Join(lines, "\r\n")))
	res := callTool(t, e.client, "download_attachment", map[string]any{"folder": folder, "uid": uid, "attachment_index": 0})
	if res.IsError {
		t.Fatalf("download of a 999-byte attachment with a %d-byte limit failed: %s", limit, res.Content[0].(mcp.TextContent).Text)
	}
	var r tools.DownloadResult
	structured(t, res, &r)
	if r.SizeBytes != 999 {
		t.Errorf("size_bytes = %d, want 999", r.SizeBytes)
	}
}

// a message over readPrefix (1 MiB, text parts fetched on their own)
// must read like the same message under it: a text/plain part that is
// blank next to an HTML part gives the rendered HTML as body_text
// (DESIGN.md: HTML-only mail gets a readable body_text; ParseBodies: "no
// text/plain body, or only a blank one"), and trailing blank lines are
// dropped in both paths.
func TestReadBigMessageBlankTextPart(t *testing.T) {
	e := newMailEnv(t, tools.Options{})
	folder := e.acct.Folder("rd-big-blank")
	e.acct.CreateFolder(t, folder)
	parts := func(text, attachment string) string {
		return "--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + text + "\r\n" +
			"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Your code is <b>424242</b></p>\r\n" +
			"--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=data.bin\r\n\r\n" + attachment + "\r\n--b--\r\n"
	}
	line := strings.Repeat("A", 76) + "\r\n"
	for _, text := range []string{" \r\n", "Hello\r\n\r\n"} {
		small := e.acct.Append(t, folder, mimeMessage("small", "multipart/mixed; boundary=b", parts(text, line)))
		big := e.acct.Append(t, folder, mimeMessage("big", "multipart/mixed; boundary=b", parts(text, strings.Repeat(line, 15000))))
		var s, b tools.ReadResult
		e.call(t, "read_email", map[string]any{"folder": folder, "uid": small}, &s)
		e.call(t, "read_email", map[string]any{"folder": folder, "uid": big}, &b)
		if b.BodyText != s.BodyText {
			t.Errorf("text part %q: big message body_text = %q, small = %q", text, b.BodyText, s.BodyText)
		}
	}
}

// (nothing else covers ids with a stale UIDVALIDITY in
// mark_email/move_email): a valid id mixed with a stale one changes nothing.
func TestMarkStaleIDChangesNothing(t *testing.T) {
	e := newMailEnv(t, tools.Options{})
	folder, uids := e.seed(t, "rd-mark-stale", "gmail-alternative.eml", "latin1-qp.eml")
	good := l2id(t, e, folder, uids[0])
	var v, u uint32
	if _, err := fmt.Sscanf(good, "msg_%d_%d", &v, &u); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf("msg_%d_%d", v+1, uids[1])
	e.wantError(t, "mark_email", map[string]any{"folder": folder, "uids": []any{good, stale}, "flagged": true}, mcpkit.CodeMessageNotFound)
	e.wantError(t, "mark_email", map[string]any{"folder": folder, "uid": uids[0], "uids": []any{stale}, "flagged": true}, mcpkit.CodeMessageNotFound)
	for _, u := range uids {
		if slices.Contains(e.acct.Flags(t, folder, u), `\Flagged`) {
			t.Errorf("uid %d flagged by a refused mark_email", u)
		}
	}
	e.wantError(t, "move_email", map[string]any{"from_folder": folder, "to_folder": "INBOX", "uid": stale}, mcpkit.CodeMessageNotFound)
}

// INBOX is case-insensitive (RFC 3501 §5.1): moving from INBOX to
// "inbox" is the same-folder INVALID_ARGUMENT that from_folder ==
// to_folder gets, not INTERNAL (retryable).
func TestMoveInboxCase(t *testing.T) {
	e := newMailEnv(t, tools.Options{})
	e.wantError(t, "move_email", map[string]any{"from_folder": "INBOX", "to_folder": "inbox", "uid": 1}, mcpkit.CodeInvalidArgument)
}

// a text body over maxTextPart (8 MiB) must not end early with
// truncated=false: truncated means "more body follows" (read_email's
// schema), so a full window that ends before the end of the body must say
// truncated=true.
func TestReadHugeTextBodySaysIncomplete(t *testing.T) {
	e := newMailEnv(t, tools.Options{})
	folder := e.acct.Folder("rd-huge-text")
	e.acct.CreateFolder(t, folder)
	line := strings.Repeat("x", 99) + "\r\n" // 101 bytes, 100 characters once CRLF is LF
	const lines = 93000                      // 9.39 MB, 9.3 M characters
	body := strings.Repeat(line, lines-1) + "THE END\r\n"
	uid := e.acct.Append(t, folder, mimeMessage("huge", "text/plain; charset=us-ascii", body))
	var r tools.ReadResult
	e.call(t, "read_email", map[string]any{"folder": folder, "uid": uid, "offset": 8_300_000, "max_chars": 500000}, &r)
	// Only 8 MiB of the part is read: the last window ends there, and the
	// result says the body is incomplete rather than ending silently.
	if !r.Incomplete || strings.Contains(r.BodyText, "THE END") {
		t.Errorf("window at 8,300,000 of a %d-character body: %d characters, truncated=%v, body_incomplete=%v; want body_incomplete",
			(lines-1)*100+len("THE END"), len([]rune(r.BodyText)), r.Truncated, r.Incomplete)
	}
	var small tools.ReadResult
	e.call(t, "read_email", map[string]any{"folder": folder, "uid": e.acct.Append(t, folder, mimeMessage("small", "text/plain", "short\r\n"))}, &small)
	if small.Incomplete {
		t.Error("a short body is marked incomplete")
	}
}

// attachmentStructure is a text part and a base64 attachment a.bin at [2].
const attachmentStructure = `BODYSTRUCTURE (("text" "plain" ("charset" "us-ascii") NIL NIL "7bit" 2 1 NIL NIL NIL NIL)` +
	`("application" "octet-stream" NIL NIL NIL "base64" 8 NIL ("attachment" ("filename" "a.bin")) NIL NIL) "mixed" ("boundary" "b") NIL NIL NIL)`

// when the server sends no bytes of the attachment (BODY[2] NIL),
// download_attachment must fail (MESSAGE_NOT_FOUND or
// ATTACHMENT_NOT_FOUND) and leave nothing in downloads/, not report an
// empty file as the attachment.
func TestDownloadNilPartNoEmptyFile(t *testing.T) {
	// BODY[2] NIL: as a server may answer for a message another session
	// expunged (RFC 2180 4.1.3).
	host, port := mailtest.ScriptedIMAP(t, mailtest.OneMessage{BodyStructure: attachmentStructure, Part: "BODY[2] NIL"})
	mail := imap.New(imap.Options{Host: host, Port: port, Username: "u", Password: "p", Security: imap.SecurityPlain, PoolSize: 1})
	t.Cleanup(func() { _ = mail.Close() })
	base := t.TempDir()
	ws, err := attachments.Open(attachments.Options{BaseDir: base, MaxFileSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	ts, err := tools.New(tools.Deps{Mail: mail, Files: ws}, tools.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	c := inProcessClient(t, ts)
	res := callTool(t, c, "download_attachment", map[string]any{"uid": 5, "attachment_index": 0})
	text := res.Content[0].(mcp.TextContent).Text
	if !res.IsError {
		t.Errorf("download_attachment of a part the server answered NIL succeeded: %s", text)
	}
	ents, _ := os.ReadDir(filepath.Join(base, "attachments", "email", "downloads"))
	for _, en := range ents {
		info, _ := en.Info()
		t.Errorf("downloads/ holds %q (%d bytes)", en.Name(), info.Size())
	}
}
