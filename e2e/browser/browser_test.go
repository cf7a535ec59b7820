package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// chromium is CHROMIUM, or Debian's chromium on PATH.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Fatal("no chromium: apt-get install -y chromium, or set CHROMIUM")
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile, offline
// flags and a phone-or-desktop window; it returns a tab's context.
func newBrowser(t *testing.T, width, height int) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 180*time.Second)
	t.Cleanup(func() { cancelT(); cancelB(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript condition, bounded by tries×100 ms.
func waitFor(t *testing.T, ctx context.Context, what, cond string, tries int) {
	t.Helper()
	for i := 0; i < tries; i++ {
		if eval[bool](t, ctx, "!!("+cond+")") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: %s still false after %d tries", what, cond, tries)
}

// shot writes a PNG screenshot and prints its path.
func shot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
	fmt.Println("screenshot:", p)
}

func shotsDir(t *testing.T) string {
	if d := os.Getenv("E2E_SHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	d, err := os.MkdirTemp("", "email-mcp-ui-shots-")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

const otpMail = `From: "Acme Sign-up" <app@example.test>
To: me@example.test
Subject: Your Acme verification code
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="b1"

--b1
Content-Type: text/plain; charset=utf-8

Welcome to Acme! Your verification code is 739204.
It expires in 10 minutes.

--b1
Content-Type: text/plain; name="report.txt"
Content-Disposition: attachment; filename="report.txt"
Content-Transfer-Encoding: base64

aGVsbG8gZnJvbSB0aGUgYXR0YWNobWVudAo=
--b1--
`

// TestWebInbox signs in, watches a mail arrive without a reload, opens it,
// copies nothing but sees its code, downloads its attachment and deletes it.
func TestWebInbox(t *testing.T) {
	s := start(t)
	ctx := newBrowser(t, 1280, 860)
	shots := shotsDir(t)
	downloads := t.TempDir()
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads}); err != nil {
		t.Fatalf("downloads: %v", err)
	}

	// A wrong key is refused: the form stays, with its error.
	run(t, ctx, "open /", chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.CSS("#login-form")))
	if u := eval[string](t, ctx, "location.pathname"); u != "/ui" {
		t.Errorf("/ redirected to %q, want /ui", u)
	}
	run(t, ctx, "wrong key", chromedp.SendKeys(chromedp.CSS("#key"), "not-the-key"), chromedp.Click(chromedp.CSS("#login-form button")))
	waitFor(t, ctx, "wrong key refused", `document.getElementById("login-error").textContent.includes("refused")`, 50)
	if eval[bool](t, ctx, `!document.getElementById("app").hidden`) {
		t.Fatal("the app is shown after a wrong key")
	}
	if c := eval[string](t, ctx, "document.cookie"); c != "" {
		t.Errorf("document.cookie = %q after a wrong key, want empty (and HttpOnly anyway)", c)
	}

	// The right key signs in; the session cookie is HttpOnly.
	eval[string](t, ctx, `document.getElementById("key").value = ""`)
	run(t, ctx, "sign in", chromedp.SendKeys(chromedp.CSS("#key"), key), chromedp.Click(chromedp.CSS("#login-form button")),
		chromedp.WaitVisible(chromedp.CSS("#app")))
	waitFor(t, ctx, "folders listed", `document.querySelectorAll("#folders li").length > 0`, 100)
	if c := eval[string](t, ctx, "document.cookie"); c != "" {
		t.Errorf("document.cookie = %q, want empty: the session cookie must be HttpOnly", c)
	}

	// A test inbox made from the page.
	run(t, ctx, "create inbox", chromedp.SendKeys(chromedp.CSS("#inbox-label"), "signup"), chromedp.Click(chromedp.CSS("#new-inbox button")))
	waitFor(t, ctx, "inbox listed", `[...document.querySelectorAll("#inboxes li")].some(li => li.textContent.includes("signup"))`, 100)
	run(t, ctx, "back to INBOX", chromedp.Click(chromedp.CSS(`#folders li[data-folder="INBOX"]`)))
	waitFor(t, ctx, "live", `document.getElementById("messages").textContent.includes("No mail yet")`, 100)

	// Mail delivered by SMTP appears without a reload.
	eval[bool](t, ctx, "window.__sameDocument = true")
	s.send(t, "me@example.test", otpMail)
	waitFor(t, ctx, "mail appears", `document.getElementById("messages").textContent.includes("Your Acme verification code")`, 150)
	if !eval[bool](t, ctx, "window.__sameDocument === true") {
		t.Fatal("the page reloaded to show new mail; want it pushed")
	}
	shot(t, ctx, shots, "list")

	// The message view: the code the tools find, with its confidence.
	run(t, ctx, "open", chromedp.Click(chromedp.CSS(`#messages li`)))
	waitFor(t, ctx, "code shown", `document.getElementById("found").textContent.includes("739204")`, 100)
	if txt := eval[string](t, ctx, `document.getElementById("found").textContent`); !strings.Contains(txt, "confidence") {
		t.Errorf("found = %q, want the confidence shown", txt)
	}
	if n := eval[int](t, ctx, `[...document.querySelectorAll("#found button")].filter(b => b.textContent === "Copy").length`); n != 1 {
		t.Errorf("%d copy buttons, want 1 (the code)", n)
	}
	shot(t, ctx, shots, "message")

	// The attachment downloads with its bytes.
	run(t, ctx, "download", chromedp.Click(chromedp.CSS(`#attachments a`)))
	var got []byte
	for i := 0; i < 100 && got == nil; i++ { // bounded: 10 s
		if b, err := os.ReadFile(filepath.Join(downloads, "report.txt")); err == nil && len(b) > 0 {
			got = b
		}
		time.Sleep(100 * time.Millisecond)
	}
	if string(got) != "hello from the attachment\n" {
		t.Errorf("downloaded report.txt = %q, want the attachment's text", got)
	}

	// Delete moves it to Trash.
	run(t, ctx, "delete", chromedp.Click(chromedp.Search(`//div[@id="actions"]/button[text()="Delete"]`)))
	waitFor(t, ctx, "gone from the list", `!document.getElementById("messages").textContent.includes("Your Acme verification code")`, 100)
	if got := s.subjects(t, "Trash"); !slices.Contains(got, "Your Acme verification code") {
		t.Errorf("Trash holds %q, want the deleted message", got)
	}
}

// TestWebInboxLoginLink: the banner's link signs in once.
func TestWebInboxLoginLink(t *testing.T) {
	s := start(t)
	ctx := newBrowser(t, 800, 900)
	link := strings.Replace(s.loginLink, "localhost", "127.0.0.1", 1)
	// A phone-sized viewport (headless windows are at least 500 px wide).
	run(t, ctx, "login link", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("#app")))
	if q := eval[string](t, ctx, "location.search"); q != "" {
		t.Errorf("after the link the URL keeps %q, want the token gone", q)
	}
	s.send(t, "me@example.test", otpMail)
	waitFor(t, ctx, "mail appears", `document.getElementById("messages").textContent.includes("Your Acme verification code")`, 150)
	if w := eval[int](t, ctx, "document.documentElement.scrollWidth"); w > 390 {
		t.Errorf("on a 390 px screen the page is %d px wide, want no horizontal scroll", w)
	}
	shots := shotsDir(t)
	shot(t, ctx, shots, "phone-list")
	run(t, ctx, "open", chromedp.Click(chromedp.CSS(`#messages li`)))
	waitFor(t, ctx, "code shown", `document.getElementById("found").textContent.includes("739204")`, 100)
	shot(t, ctx, shots, "phone-message")
	other := newBrowser(t, 1000, 800)
	run(t, other, "link again", chromedp.Navigate(link))
	body := eval[string](t, other, "document.body.innerText")
	if !strings.Contains(body, "not valid") {
		t.Errorf("a used link answered %q, want it refused", body)
	}
}

const hostileHTML = `From: app@example.test
To: me@example.test
Subject: Hostile HTML
MIME-Version: 1.0
Content-Type: text/html; charset=utf-8

<html><body><h1>Welcome</h1>
<p>Your code is <b>482913</b>.</p>
<script>parent.document.title = "pwned"; document.title = "pwned"; new Image().src = "%[1]s/script.gif"; fetch("%[1]s/fetch");</script>
<img src="%[1]s/pixel.gif" alt="tracker">
<img src="x" onerror="new Image().src='%[1]s/onerror.gif'">
</body></html>
`

// TestWebInboxRefusals: a cross-site POST changes nothing, and an HTML
// mail runs no script and loads no remote image until asked.
func TestWebInboxRefusals(t *testing.T) {
	s := start(t)
	img := newRecorder(t, "")
	s.send(t, "me@example.test", fmt.Sprintf(hostileHTML, img.url))
	uid := "1"

	// Another site (a page on another port) posts to the page's delete.
	attacker := newRecorder(t, fmt.Sprintf(`<html><body>
<form id="f" method="POST" action="%[1]s/ui/api/delete" enctype="text/plain">
<input name='{"folder":"INBOX","uid":"%[2]s","x":"' value='"}'></form>
<script>
fetch("%[1]s/ui/api/delete", {method: "POST", credentials: "include", mode: "no-cors",
  headers: {"Content-Type": "text/plain"}, body: JSON.stringify({folder: "INBOX", uid: "%[2]s"})})
  .finally(() => document.getElementById("f").submit());
</script></body></html>`, s.url, uid))

	ctx := newBrowser(t, 1280, 860)
	run(t, ctx, "sign in", chromedp.Navigate(s.url+"/ui"), chromedp.WaitVisible(chromedp.CSS("#login-form")),
		chromedp.SendKeys(chromedp.CSS("#key"), key), chromedp.Click(chromedp.CSS("#login-form button")), chromedp.WaitVisible(chromedp.CSS("#app")))
	waitFor(t, ctx, "listed", `document.getElementById("messages").textContent.includes("Hostile HTML")`, 100)

	var answer string
	run(t, ctx, "cross-site POST", chromedp.Navigate(attacker.url+"/page"))
	for i := 0; i < 100; i++ { // bounded: 10 s, until the form's answer shows
		answer = eval[string](t, ctx, "location.href + ' ' + document.body.innerText")
		if strings.Contains(answer, "/ui/api/delete") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(answer, "CSRF") && !strings.Contains(answer, "UNAUTHORIZED") {
		t.Errorf("the cross-site POST answered %q, want a CSRF or sign-in refusal", answer)
	}
	if got := s.subjects(t, "INBOX"); !slices.Contains(got, "Hostile HTML") {
		t.Fatalf("INBOX holds %q after the cross-site POST, want the message still there", got)
	}

	// The HTML view: no script ran, no remote request went out.
	run(t, ctx, "back", chromedp.Navigate(s.url+"/ui"), chromedp.WaitVisible(chromedp.CSS("#app")))
	waitFor(t, ctx, "listed", `document.getElementById("messages").textContent.includes("Hostile HTML")`, 100)
	run(t, ctx, "open", chromedp.Click(chromedp.CSS(`#messages li`)))
	waitFor(t, ctx, "html tab", `!document.getElementById("tab-html").hidden && document.getElementById("frame").src.includes("/ui/html")`, 100)
	waitFor(t, ctx, "code found", `document.getElementById("found").textContent.includes("482913")`, 100)
	time.Sleep(1500 * time.Millisecond) // let the frame load and any script try; no assertion on time
	if sb := eval[string](t, ctx, `document.getElementById("frame").getAttribute("sandbox")`); strings.Contains(sb, "allow-scripts") {
		t.Errorf("iframe sandbox = %q, want no allow-scripts", sb)
	}
	if title := eval[string](t, ctx, "document.title"); title == "pwned" {
		t.Error("the mail's script ran: the page title changed")
	}
	if reqs := img.requests(); len(reqs) != 0 {
		t.Errorf("the image server got %q before remote images were asked for, want nothing", reqs)
	}

	// The control: once asked, the remote image loads (so the server above
	// was reachable and the check could fail); scripts still do not run.
	run(t, ctx, "load remote images", chromedp.Click(chromedp.CSS("#remote")))
	for i := 0; i < 100 && !slices.Contains(img.requests(), "/pixel.gif"); i++ { // bounded: 10 s
		time.Sleep(100 * time.Millisecond)
	}
	reqs := img.requests()
	shot(t, ctx, shotsDir(t), "html-message")
	if !slices.Contains(reqs, "/pixel.gif") {
		t.Errorf("after \"Load remote images\" the image server got %q, want /pixel.gif", reqs)
	}
	for _, p := range reqs {
		if p != "/pixel.gif" {
			t.Errorf("the image server got %s: a script or handler ran", p)
		}
	}
}
