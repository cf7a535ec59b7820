package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/auth"
	"github.com/email-mcp/email-mcp/devmail"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/tools"
	"github.com/email-mcp/email-mcp/transport"
	"github.com/email-mcp/email-mcp/web"
)

const key = "web-test-key-0123456789"

// env is the page on a real stack: the sandbox server, the IMAP adapter,
// the tools and the API's auth middleware, served by httptest.
type env struct {
	url   string
	sb    *devmail.Server
	pages *web.Handler
}

func newEnv(t testing.TB, readOnly bool) *env {
	t.Helper()
	return newEnvStop(t, readOnly, nil)
}

func newEnvStop(t testing.TB, readOnly bool, stop chan struct{}) *env {
	t.Helper()
	sb, err := devmail.Start(context.Background(), devmail.Options{IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	host, port, _ := strings.Cut(sb.IMAPAddr(), ":")
	var p int
	fmt.Sscan(port, &p)
	mail := imap.New(imap.Options{Host: host, Port: p, Username: sb.Username(), Password: "pw", Security: imap.SecurityPlain})
	t.Cleanup(func() { mail.Close() })
	srv, err := tools.New(tools.Deps{Mail: mail, Inbox: mail,
		Inboxes: tools.InboxOptions{Address: "me@sandbox.localhost", Sandbox: true}},
		tools.Options{ReadOnly: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	mw, err := auth.New(auth.Options{Keys: []string{key}})
	if err != nil {
		t.Fatal(err)
	}
	pages := web.New(web.Options{Tools: srv, Auth: mw, Key: key, Stop: stop})
	h, err := transport.Handler(srv.Server, transport.Options{Auth: mw, Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return &env{url: ts.URL, sb: sb, pages: pages}
}

func (e *env) deliver(t testing.TB, subject, body string) {
	t.Helper()
	raw := "From: app@example.test\r\nTo: me@example.test\r\nSubject: " + subject + "\r\n\r\n" + body + "\r\n"
	if err := e.sb.Deliver(context.Background(), []byte(raw), []string{"me@example.test"}); err != nil {
		t.Fatal(err)
	}
}

// browser is an http.Client with a cookie jar, signed in.
type browser struct {
	*http.Client
	csrf string
}

func signIn(t testing.TB, e *env) *browser {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &browser{Client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	resp, err := b.PostForm(e.url+"/ui/login", url.Values{"key": {key}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ CSRF string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 || out.CSRF == "" {
		t.Fatalf("login = %d %v %+v, want 200 with a csrf token", resp.StatusCode, err, out)
	}
	b.csrf = out.CSRF
	return b
}

func (b *browser) post(t testing.TB, u string, body any, hdr map[string]string) (int, string) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", u, strings.NewReader(string(raw)))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(got)
}

func (b *browser) get(t testing.TB, u string) (*http.Response, string) {
	t.Helper()
	resp, err := b.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return resp, string(got)
}

func TestLoginCookie(t *testing.T) {
	e := newEnv(t, false)
	resp, err := http.PostForm(e.url+"/ui/login", url.Values{"key": {"wrong-key"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || len(resp.Cookies()) != 0 {
		t.Errorf("login with a wrong key = %d with cookies %v, want 401 and none", resp.StatusCode, resp.Cookies())
	}
	resp, err = http.PostForm(e.url+"/ui/login", url.Values{"key": {key}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cs := resp.Cookies()
	if len(cs) != 1 || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode || cs[0].Path != "/ui" || cs[0].Secure {
		t.Errorf("session cookie = %+v, want one HttpOnly SameSite=Strict Path=/ui (not Secure over plain HTTP)", cs)
	}
	if r, _ := (&browser{Client: http.DefaultClient}).get(t, e.url+"/ui/api/folders"); r.StatusCode != 401 {
		t.Errorf("GET /ui/api/folders without a session = %d, want 401", r.StatusCode)
	}
	b := signIn(t, e)
	if r, body := b.get(t, e.url+"/ui/api/folders"); r.StatusCode != 200 || !strings.Contains(body, `"INBOX"`) {
		t.Errorf("GET /ui/api/folders signed in = %d %s, want the folders", r.StatusCode, body)
	}
}

func TestCSRFAndOrigin(t *testing.T) {
	e := newEnv(t, false)
	e.deliver(t, "hello", "Your code is 123456")
	b := signIn(t, e)
	mark := map[string]any{"folder": "INBOX", "uid": "1", "read": true}
	if code, body := b.post(t, e.url+"/ui/api/mark", mark, nil); code != 403 || !strings.Contains(body, "CSRF") {
		t.Errorf("mark without X-CSRF-Token = %d %s, want 403 CSRF", code, body)
	}
	if code, _ := b.post(t, e.url+"/ui/api/mark", mark, map[string]string{"X-CSRF-Token": "x" + b.csrf}); code != 403 {
		t.Errorf("mark with a wrong X-CSRF-Token = %d, want 403", code)
	}
	hdr := map[string]string{"X-CSRF-Token": b.csrf, "Origin": "https://evil.example"}
	if code, body := b.post(t, e.url+"/ui/api/mark", mark, hdr); code != 403 || !strings.Contains(body, "FORBIDDEN_ORIGIN") {
		t.Errorf("mark from another origin = %d %s, want 403 FORBIDDEN_ORIGIN", code, body)
	}
	if code, body := b.post(t, e.url+"/ui/api/mark", mark, map[string]string{"X-CSRF-Token": b.csrf}); code != 200 || !strings.Contains(body, `"success":true`) {
		t.Errorf("mark with the token = %d %s, want success", code, body)
	}
	req, _ := http.NewRequest("GET", e.url+"/ui/api/folders", nil)
	req.Host = "rebind.example"
	u, _ := url.Parse(e.url + "/ui")
	for _, c := range b.Jar.Cookies(u) {
		req.AddCookie(c)
	}
	resp, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 403 {
		b, _ := io.ReadAll(resp.Body)
		t.Errorf("GET with Host rebind.example = %d %s, want 403 FORBIDDEN_HOST", resp.StatusCode, b)
	}
}

func TestLoginLinkOnce(t *testing.T) {
	e := newEnv(t, false)
	link := e.pages.LoginLink(e.url)
	b := signIn(t, e) // for its client; its session is not used
	b.Jar, _ = cookiejar.New(nil)
	resp, _ := b.get(t, link)
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("GET the login link = %d, cookies %v; want 303 with the session cookie", resp.StatusCode, resp.Cookies())
	}
	if r, _ := b.get(t, e.url+"/ui/api/session"); r.StatusCode != 200 {
		t.Errorf("session after the link = %d, want 200", r.StatusCode)
	}
	b.Jar, _ = cookiejar.New(nil)
	if resp, _ := b.get(t, link); resp.StatusCode != 401 || len(resp.Cookies()) != 0 {
		t.Errorf("the link used again = %d, cookies %v; want 401 and none", resp.StatusCode, resp.Cookies())
	}
}

func TestHTMLPolicy(t *testing.T) {
	e := newEnv(t, false)
	e.deliver(t, "hi", "body")
	b := signIn(t, e)
	for _, tc := range []struct{ q, want, not string }{
		{"", "img-src data: cid:;", "http:"},
		{"&remote=1", "img-src data: cid: http: https:;", "script"},
	} {
		resp, _ := b.get(t, e.url+"/ui/html?folder=INBOX&uid=1"+tc.q)
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.StatusCode != 200 || !strings.Contains(csp, tc.want) || !strings.Contains(csp, "sandbox") ||
			!strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, tc.not) {
			t.Errorf("html%s: %d, CSP %q; want %q, sandbox, default-src 'none', no %q", tc.q, resp.StatusCode, csp, tc.want, tc.not)
		}
	}
	resp, page := b.get(t, e.url+"/ui")
	if !strings.Contains(page, `<iframe id="frame" sandbox `) || strings.Contains(page, "allow-scripts") {
		t.Errorf("the page's iframe is not sandboxed without allow-scripts")
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Errorf("page CSP = %q, want script-src 'self' and nothing unsafe", csp)
	}
}

func TestReadOnlyOffersNoChanges(t *testing.T) {
	e := newEnv(t, true)
	e.deliver(t, "hello", "x")
	b := signIn(t, e)
	_, body := b.get(t, e.url+"/ui/api/session")
	if !strings.Contains(body, `"can_change":false`) {
		t.Errorf("session in read-only mode = %s, want can_change false", body)
	}
	code, body := b.post(t, e.url+"/ui/api/delete", map[string]any{"folder": "INBOX", "uid": "1"}, map[string]string{"X-CSRF-Token": b.csrf})
	if code != 403 || !strings.Contains(body, "READ_ONLY") {
		t.Errorf("delete in read-only mode = %d %s, want 403 READ_ONLY", code, body)
	}
}

func TestEventsPushNewMail(t *testing.T) {
	e := newEnv(t, false)
	b := signIn(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.url+"/ui/api/events?folder=INBOX", nil)
	resp, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), ": watching") {
		t.Fatalf("first event line = %q, want the watching comment", lines.Text())
	}
	e.deliver(t, "pushed", "x")
	for lines.Scan() { // bounded by ctx
		if lines.Text() == "event: mail" {
			if lines.Scan(); lines.Text() != "data: 1" {
				t.Errorf("mail event data = %q, want data: 1", lines.Text())
			}
			return
		}
	}
	t.Fatalf("no mail event: %v", lines.Err())
}

// TestEventsEndOnStop: shutting down ends the open streams (Shutdown
// would wait for them until its deadline).
func TestEventsEndOnStop(t *testing.T) {
	stop := make(chan struct{})
	e := newEnvStop(t, false, stop)
	b := signIn(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.url+"/ui/api/events?folder=INBOX", nil)
	resp, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() {
		t.Fatalf("no first line: %v", lines.Err())
	}
	close(stop)
	for lines.Scan() { // bounded by ctx
	}
	if err := lines.Err(); err != nil {
		t.Errorf("the stream did not end on Stop: %v", err)
	}
}

// BenchmarkListMessages10k times the list endpoint (one page of 50) with
// 10,000 messages in the sandbox's INBOX.
func BenchmarkListMessages10k(b *testing.B) {
	e := newEnv(b, false)
	for i := range 10000 {
		raw := fmt.Sprintf("From: app@example.test\r\nTo: me@example.test\r\nSubject: message %d\r\n\r\nbody %d\r\n", i, i)
		if err := e.sb.Deliver(context.Background(), []byte(raw), []string{"me@example.test"}); err != nil {
			b.Fatal(err)
		}
	}
	br := signIn(b, e)
	b.ResetTimer()
	for b.Loop() {
		resp, body := br.get(b, e.url+"/ui/api/messages?folder=INBOX")
		if resp.StatusCode != 200 || !strings.Contains(body, `"total":10000`) {
			b.Fatalf("list = %d %.200s", resp.StatusCode, body)
		}
	}
}
