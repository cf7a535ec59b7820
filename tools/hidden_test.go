package tools_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/tools"
)

// hiddenClasses has one character of every class of hidden or control
// character that no returned field may carry.
var hiddenClasses = []struct{ name, s string }{
	{"C0 control", "\x01"}, {"escape sequence", "\x1b[2J"}, {"DEL", "\x7f"},
	{"line feed", "\n"}, {"carriage return", "\r"}, {"tab", "\t"}, {"C1 control", "\u009b"}, {"NEL", "\u0085"},
	{"soft hyphen", "\u00ad"}, {"zero-width space", "\u200b"}, {"zero-width joiner", "\u200d"}, {"LRM", "\u200e"},
	{"bidi override", "\u202e"}, {"bidi isolate", "\u2066"}, {"line separator", "\u2028"}, {"BOM", "\ufeff"},
	{"Hangul filler", "\u3164"}, {"variation selector", "\ufe01"}, {"supplementary variation selector", "\U000E0100"},
	{"tag character", "\U000E0041"}, {"noncharacter", "\uffff"}, {"word joiner", "\u2060"},
}

// hostileText is "x" followed by every class, each between letters.
func hostileText() string {
	var b strings.Builder
	b.WriteString("x")
	for _, c := range hiddenClasses {
		b.WriteString(c.s + "x")
	}
	return b.String()
}

// qWord is s as one RFC 2047 Q-encoded word, every byte as =XX.
func qWord(s string) string {
	var b strings.Builder
	b.WriteString("=?utf-8?q?")
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "=%02X", s[i])
	}
	return b.String() + "?="
}

// pct is s percent-encoded byte by byte (RFC 2231 values).
func pct(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// rawHidden is the classes that can stand raw in a header line (no line
// breaks): in addresses and Message-IDs.
func rawHidden() string {
	var b strings.Builder
	for _, c := range hiddenClasses {
		if !strings.ContainsAny(c.s, "\r\n") {
			b.WriteString(c.s)
		}
	}
	return b.String()
}

// hiddenMail puts every hidden class into every field a tool returns:
// names, addresses, subject, Message-ID, In-Reply-To, References, bodies,
// the link, the attachment's name and content type.
func hiddenMail(to, subject string) string {
	h, raw := hostileText(), rawHidden()
	link := "https://app.example/verify?token=ab" + strings.NewReplacer("\x1b", "&#x1b;", "\n", "&#10;", "\r", "&#13;", "\t", "&#9;").Replace(h)
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s <\"eve%s\"@evil.example>\r\n", qWord("Eve"+h), raw)
	fmt.Fprintf(&b, "To: %s, %s <\"bob%s\"@evil.example>\r\n", to, qWord("Bob"+h), raw)
	fmt.Fprintf(&b, "Cc: \"carol%s\"@evil.example\r\nReply-To: \"dave%s\"@evil.example\r\n", raw, raw)
	fmt.Fprintf(&b, "Subject: %s %s\r\n", subject, qWord(h))
	fmt.Fprintf(&b, "Message-ID: <id%s@evil.example>\r\nIn-Reply-To: <parent%s@evil.example>\r\nReferences: <root%s@evil.example> <parent%s@evil.example>\r\n", raw, raw, raw, raw)
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"outer\"\r\n\r\n")
	b.WriteString("--outer\r\nContent-Type: multipart/alternative; boundary=\"alt\"\r\n\r\n")
	fmt.Fprintf(&b, "--alt\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n%s\r\n",
		b64Lines("Your code is 583920. Verify: "+link+"\n"+h))
	fmt.Fprintf(&b, "--alt\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Your code is 583920</p><p><a href=\"%s\">Verify your account</a> %s</p>\r\n--alt--\r\n",
		link, strings.ReplaceAll(h, "\r", ""))
	fmt.Fprintf(&b, "--outer\r\nContent-Type: application/x-evil%s; name*=utf-8''%s.pdf\r\nContent-Disposition: attachment; filename*=utf-8''%s.pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n%s\r\n--outer--\r\n",
		raw, pct("report"+h), pct("report"+h), b64Lines("%PDF-1.4 hostile"))
	return b.String()
}

// hiddenRune reports a character no returned string may have; lines
// allows "\n" and "\t" (the bodies).
func hiddenRune(r rune, lines bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !lines
	case r == 0xFE0E || r == 0xFE0F: // presentation selectors: checked by CleanText's tests
		return false
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0000 && r <= 0xE0FFF, r == 0x3164, r == 0x115F, r == 0x1160, r == 0xFFA0,
		r == 0x034F, r&0xFFFE == 0xFFFE, r >= 0xFDD0 && r <= 0xFDEF, r == 0x2028, r == 0x2029:
		return true
	}
	return unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r)
}

// checkClean walks a decoded JSON answer and reports every string with a
// hidden character, and every link that is no valid URL; it returns the
// number of strings looked at.
func checkClean(t *testing.T, where, key string, v any) int {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		n := 0
		for k, val := range x {
			n += checkClean(t, where+" key", "", k) + checkClean(t, where+"."+k, k, val)
		}
		return n
	case []any:
		n := 0
		for i, val := range x {
			n += checkClean(t, fmt.Sprintf("%s[%d]", where, i), key, val)
		}
		return n
	case string:
		lines := key == "body_text" || key == "body_html"
		for _, r := range x {
			if hiddenRune(r, lines) {
				t.Errorf("%s = %q: has %U", where, x, r)
				break
			}
		}
		if key == "link" || key == "links" || key == "magic_link" {
			if u, err := url.Parse(x); err != nil || u.Host != "app.example" || strings.ContainsFunc(x, unicode.IsSpace) {
				t.Errorf("%s = %q: not a valid URL of app.example (%v)", where, x, err)
			}
		}
		return 1
	}
	return 0
}

// checkAnswer checks both forms of a tool's answer: the JSON text and
// structuredContent.
func checkAnswer(t *testing.T, tool string, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s failed: %s", tool, res.Content[0].(mcp.TextContent).Text)
	}
	var text, sc map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &text); err != nil {
		t.Fatalf("%s text: %v", tool, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatalf("%s structuredContent: %v", tool, err)
	}
	checkClean(t, tool+" text", "", text)
	checkClean(t, tool+" structuredContent", "", sc)
	return sc
}

// TestNoHiddenCharactersReturned: mail sent to the sandbox over SMTP with
// every class of hidden or control character in every field; no tool
// returns one, in any field (body_text and body_html keep "\n" and "\t"),
// links stay valid URLs, read_email says hidden_characters_removed, and
// the visible text survives.
func TestNoHiddenCharactersReturned(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := &inboxEnv{mailEnv: sandboxClient(t, env), mail: env.mail}
	in := e.create(t, "hostile")
	since := e.nextSince(t, in.InboxID)
	sendRaw(t, env.sandbox.SMTPAddr(), in.Address, hiddenMail(in.Address, "Hostile"))

	calls := []struct {
		tool string
		args map[string]any
	}{
		{"wait_for_email", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 20}},
		{"wait_for_link", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 20}},
		{"wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 20}},
		{"get_latest", map[string]any{"inbox_id": in.InboxID}},
		{"list_messages", map[string]any{"inbox_id": in.InboxID}},
		{"list_inboxes", map[string]any{}},
		{"search_emails", map[string]any{"subject": "Hostile"}},
	}
	var uid float64
	for _, c := range calls {
		sc := checkAnswer(t, c.tool, callTool(t, e.client, c.tool, c.args))
		if c.tool == "search_emails" {
			msgs, _ := sc["messages"].([]any)
			if len(msgs) != 1 {
				t.Fatalf("search_emails: %d messages, want 1", len(msgs))
			}
			uid = msgs[0].(map[string]any)["uid"].(float64)
		}
		if c.tool == "wait_for_link" && !strings.HasPrefix(sc["link"].(string), "https://app.example/verify?token=abx") {
			t.Errorf("wait_for_link link = %q, want the verify link, its hidden characters encoded", sc["link"])
		}
	}
	read := checkAnswer(t, "read_email", callTool(t, e.client, "read_email", map[string]any{"uid": uid, "format": "both"}))
	if read["hidden_characters_removed"] != true {
		t.Errorf("read_email hidden_characters_removed = %v, want true", read["hidden_characters_removed"])
	}
	if s, _ := read["subject"].(string); !strings.HasPrefix(s, "Hostile x") || strings.Count(s, "x") < len(hiddenClasses) {
		t.Errorf("read_email subject = %q: want the visible text kept", s)
	}
	atts, _ := read["attachments"].([]any)
	if len(atts) != 1 {
		t.Fatalf("read_email attachments = %v, want 1", read["attachments"])
	}
	if name, _ := atts[0].(map[string]any)["filename"].(string); !strings.HasPrefix(name, "reportx") || !strings.HasSuffix(name, ".pdf") {
		t.Errorf("attachment filename = %q, want report…pdf", name)
	}
	if ct := atts[0].(map[string]any)["content_type"]; ct != "application/octet-stream" {
		t.Errorf("attachment content_type = %q, want application/octet-stream for a type that is no token", ct)
	}
	dl := checkAnswer(t, "download_attachment", callTool(t, e.client, "download_attachment", map[string]any{"uid": uid, "attachment_index": 0}))
	if _, err := os.Stat(filepath.Join(env.base, dl["file_path"].(string))); err != nil {
		t.Errorf("download_attachment file_path %q: %v (the returned path must name the saved file)", dl["file_path"], err)
	}

	// The same over /mcp, where the answer is spliced from wrap's bytes.
	status, body := env.post(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_email","arguments":{"uid":%d,"format":"both"}}}`, int(uid)))
	var rpc struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if i := strings.Index(body, "{"); status != 200 || i < 0 || json.Unmarshal([]byte(body[i:]), &rpc) != nil || rpc.Result.StructuredContent == nil {
		t.Fatalf("POST /mcp read_email = %d %.200q", status, body)
	}
	checkClean(t, "/mcp read_email", "", rpc.Result.StructuredContent)
}

// TestHiddenFlagTruthful: hidden_characters_removed is set when a hidden
// character was removed from any field, not only from the body, and not
// for a clean mail or a mere tab.
func TestHiddenFlagTruthful(t *testing.T) {
	env := newTestEnv(t, tools.Options{})
	e := sandboxClient(t, env)
	for _, tc := range []struct {
		subject, header string
		want            bool
	}{
		{"flag clean", "From: Shop <shop@example.test>\r\n", false},
		{"flag tab", "From: =?utf-8?q?Shop=09Team?= <shop@example.test>\r\n", false},
		{"flag name", "From: =?utf-8?q?Shop=E2=80=AE?= <shop@example.test>\r\n", true},
		{"flag message-id", "From: shop@example.test\r\nMessage-ID: <a\u200b@example.test>\r\n", true},
		{"flag address", "From: \"shop\u202e\"@example.test\r\n", true},
		{"flag file name", "From: shop@example.test\r\nContent-Type: application/pdf; name=\"a\u200b.pdf\"\r\n", true},
	} {
		sendRaw(t, env.sandbox.SMTPAddr(), "flag@sandbox.localhost", tc.header+"To: flag@sandbox.localhost\r\nSubject: "+tc.subject+"\r\n\r\nplain body\r\n")
		m := findOne(t, e, "INBOX", tc.subject)
		var r tools.ReadResult
		e.call(t, "read_email", map[string]any{"uid": m.UID}, &r)
		if r.Hidden != tc.want {
			t.Errorf("%s: hidden_characters_removed = %v, want %v (from %q, message_id %q)", tc.subject, r.Hidden, tc.want, r.From, r.MessageID)
		}
	}
}

// b64Lines is s in base64, in lines of 76 characters.
func b64Lines(s string) string {
	enc := base64.StdEncoding.EncodeToString([]byte(s))
	var b strings.Builder
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc)
	return b.String()
}
