package inbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/extract"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/inbox"
	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/internal/realcorpus"
)

// newInboxes is the inbox domain over a mailtest account (in-process, or
// Dovecot on the tier).
func newInboxes(t *testing.T) (*inbox.Inboxes, *mailtest.Account) {
	t.Helper()
	return newInboxesOver(t, 0, func(c *imap.Client) inbox.Store { return c })
}

// newInboxesOver is newInboxes over the store wrap makes of the account's
// client, whose watcher polls every activePoll while someone waits (0:
// the default).
func newInboxesOver(t *testing.T, activePoll time.Duration, wrap func(*imap.Client) inbox.Store) (*inbox.Inboxes, *mailtest.Account) {
	t.Helper()
	acct := mailtest.NewAccount(t)
	mail := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password,
		Security: imap.SecurityPlain, PoolSize: 2, ActivePoll: activePoll})
	t.Cleanup(func() { _ = mail.Close() })
	base := acct.Username
	if !strings.Contains(base, "@") {
		base += "@example.test"
	}
	return inbox.New(wrap(mail), inbox.Options{Address: base, WaitMax: 30 * time.Second}), acct
}

func deliver(t *testing.T, acct *mailtest.Account, to, subject, body string) uint32 {
	t.Helper()
	raw := fmt.Sprintf("From: Shop <no-reply@shop.example>\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%d@shop.example>\r\n"+
		"Content-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n", to, subject, time.Now().UnixNano(), body)
	return acct.Append(t, "INBOX", []byte(raw))
}

// TestWaitAcceptsOnTheHeader: a wait for a code with since=0 skips mail
// its Accept refuses, reads Accept a message from its header alone (no
// extracts yet), and returns the code of the first message it accepts.
func TestWaitAcceptsOnTheHeader(t *testing.T) {
	ib, acct := newInboxes(t)
	ctx := context.Background()
	in, err := ib.Create(ctx, "domain")
	if err != nil {
		t.Fatalf("Create() = %v, want nil", err)
	}
	deliver(t, acct, in.Address, "Other", "Your code is 111111.")
	uid := deliver(t, acct, in.Address, "Mine", "Your code is 222222.")
	var seen []string
	accept := func(m *inbox.Mail) bool {
		if m.OTP != nil || m.Link != "" {
			t.Errorf("Accept(%q) got extracts %v %q, want the header alone", m.Header.Subject, m.OTP, m.Link)
		}
		seen = append(seen, m.Header.Subject)
		return m.Header.Subject == "Mine"
	}
	var all inbox.Since
	if err := all.UnmarshalJSON([]byte(`0`)); err != nil {
		t.Fatal(err)
	}
	timeout := 10.0
	found, err := ib.Wait(ctx, inbox.Wait{InboxID: in.ID, Want: inbox.Code, Since: all, Timeout: &timeout, Accept: accept})
	if err != nil {
		t.Fatalf("Wait() = %v, want the code", err)
	}
	if found.Code.Code != "222222" || found.UID != uid {
		t.Errorf("Wait() = code %q uid %d, want 222222 uid %d", found.Code.Code, found.UID, uid)
	}
	if strings.Join(seen, ",") != "Other,Mine" {
		t.Errorf("Accept saw %q, want Other,Mine", seen)
	}
}

// TestWaitTimeoutCarriesNextSince: a wait that finds nothing is a Timeout
// whose NextSince is after the last message it looked at.
func TestWaitTimeoutCarriesNextSince(t *testing.T) {
	ib, acct := newInboxes(t)
	ctx := context.Background()
	in, err := ib.Create(ctx, "timeout")
	if err != nil {
		t.Fatalf("Create() = %v, want nil", err)
	}
	uid := deliver(t, acct, in.Address, "No code", "Nothing to see.")
	var all inbox.Since
	if err := all.UnmarshalJSON([]byte(`"0"`)); err != nil {
		t.Fatal(err)
	}
	timeout := 1.0
	_, err = ib.Wait(ctx, inbox.Wait{InboxID: in.ID, Want: inbox.Link, Since: all, Timeout: &timeout})
	var e *inbox.Error
	if !errors.As(err, &e) || e.Kind != inbox.Timeout {
		t.Fatalf("Wait() = %v, want a Timeout", err)
	}
	if !strings.HasSuffix(e.NextSince, fmt.Sprintf("_%d", uid)) || !strings.HasPrefix(e.NextSince, "msg_") {
		t.Errorf("NextSince = %q, want msg_<uidvalidity>_%d", e.NextSince, uid)
	}
}

// TestResolveKinds: a malformed id is Invalid, a well-formed unknown one
// NotFound, and a created inbox resolves by id and by address.
func TestResolveKinds(t *testing.T) {
	ib, _ := newInboxes(t)
	ctx := context.Background()
	for _, tt := range []struct {
		id   string
		want inbox.Kind
	}{{"", inbox.Invalid}, {"Not An Id!", inbox.Invalid}, {"x@elsewhere.test", inbox.Invalid}, {"never-made-1234", inbox.NotFound}} {
		_, err := ib.Resolve(ctx, tt.id)
		var e *inbox.Error
		if !errors.As(err, &e) || e.Kind != tt.want {
			t.Errorf("Resolve(%q) = %v, want kind %d", tt.id, err, tt.want)
		}
	}
	in, err := ib.Create(ctx, "")
	if err != nil {
		t.Fatalf("Create() = %v, want nil", err)
	}
	for _, id := range []string{in.ID, strings.ToUpper(in.Address)} {
		if got, err := ib.Resolve(ctx, id); err != nil || got != in {
			t.Errorf("Resolve(%q) = %v, %v, want %v", id, got, err, in)
		}
	}
}

// An HTML-only message reaches the extractors as HTML alone: the text
// rendered from it for people shows the quoted history and each link's
// URL again, which the extractors' own rendering leaves out.
func TestViewOfHTMLOnlyMail(t *testing.T) {
	for _, tt := range []struct {
		name, html string
	}{
		{"quoted old code", `<p>Thanks, that worked.</p><div class="gmail_quote"><p>Your verification code is 482913</p></div>`},
		{"a link's URL shown in the text", `<p>A new conversation has been assigned to you. Click <a href="https://a.test/app/accounts/3/conversations/4821">here</a> to get cracking.</p>`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw := "From: a@a.test\r\nTo: b@a.test\r\nSubject: Re: hello\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + tt.html + "\r\n"
			view, _ := inbox.View([]byte(raw))
			if view.Text != "" {
				t.Errorf("View().Text = %q, want none: the message has no text part", view.Text)
			}
			otp, foundOTP := extract.BestOTP(view)
			link, foundLink := extract.BestLink(view)
			if foundOTP || foundLink {
				t.Errorf("found otp %+v (%v), link %+v (%v); want neither", otp, foundOTP, link, foundLink)
			}
		})
	}
}

// TestRealCorpusThroughView reads every message of the extractor's corpus
// of real templates (extract/testdata/real) the way the waits do, through
// View, and wants the answers TestRealCorpus wants of the extractor: the
// MIME decoding of the server and that of the extractor's tests must not
// differ. Cases marked as known misses of the extractor are skipped.
func TestRealCorpusThroughView(t *testing.T) {
	dir := filepath.Join("..", "extract", "testdata", "real")
	cases, err := realcorpus.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		// A blind case is measured once, by extract's TestRealCorpus, and
		// its answers stay unread until it is folded into tune.
		if c.Miss != "" || c.Split == "blind" {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, c.File))
		if err != nil {
			t.Fatal(err)
		}
		view, _ := inbox.View(raw)
		otp, _ := extract.BestOTP(view)
		link, _ := extract.BestLink(view)
		if otp.Code != c.Code() {
			t.Errorf("%s: otp %q, want %q", c.File, otp.Code, c.Code())
		}
		if link.URL != c.Link() {
			t.Errorf("%s: link %q, want %q", c.File, link.URL, c.Link())
		}
		n++
	}
	if n < 500 {
		t.Errorf("read %d cases, want the whole corpus", n)
	}
}
