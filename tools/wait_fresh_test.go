package tools_test

import (
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/inboxtools"
	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/tools"
)

// TestWaitWithoutSinceAfterGetLatest: get_latest (which leaves the folder
// selected on a pooled connection), then a mail, then wait_for_otp without
// since, then a new mail: the wait returns the new code, never the one that
// arrived before the call; 100 of 100. On Dovecot the cutoff came from a
// STATUS answered from the session's stale view, and the old code came back
// every time. Runs on Dovecot in its tier.
func TestWaitWithoutSinceAfterGetLatest(t *testing.T) {
	acct := mailtest.NewAccount(t)
	mail := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password,
		Security: imap.SecurityPlain, PoolSize: 1, ActivePoll: 25 * time.Millisecond})
	t.Cleanup(func() { _ = mail.Close() })
	base := acct.Username
	if !strings.Contains(base, "@") {
		base += "@example.test"
	}
	ts, err := tools.New(tools.Deps{Mail: mail, Inbox: mail, Inboxes: tools.InboxOptions{Address: base, WaitMax: 30 * time.Second}},
		tools.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e := &inboxEnv{mailEnv: &mailEnv{acct: acct, client: inProcessClient(t, ts)}, mail: mail, base: base}
	in := e.create(t, "fresh")
	for i := range 100 {
		var latest inboxtools.GetLatestResult
		e.call(t, "get_latest", map[string]any{"inbox_id": in.InboxID}, &latest)
		old, fresh := strconv.Itoa(300000+i), strconv.Itoa(600000+i)
		e.deliver(t, in.Address, "Old code", "Your code is "+old+".")
		got := make(chan string, 1)
		go func() { got <- waitCode(e, map[string]any{"inbox_id": in.InboxID, "timeout": 10}) }()
		for j := 0; j < 500 && mail.WatchStats().Subscribers == 0; j++ {
			time.Sleep(2 * time.Millisecond)
		}
		e.deliver(t, in.Address, "New code", "Your code is "+fresh+".")
		if code := <-got; code != fresh {
			t.Fatalf("try %d: wait_for_otp without since = %s, want the new code %s (%s arrived before the call)", i, code, fresh, old)
		}
	}
}

// TestWaitResubscribesAfterOverflow: a wait whose reader falls behind the
// watcher's catch-up (a queue of 1 here, 40 messages of other inboxes
// before its own) subscribes again after the last message it handled and
// still returns its code; it used to answer INTERNAL (ErrOverflow).
func TestWaitResubscribesAfterOverflow(t *testing.T) {
	acct := mailtest.NewAccount(t)
	mail := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password,
		Security: imap.SecurityPlain, PoolSize: 1, WatchQueue: 1})
	t.Cleanup(func() { _ = mail.Close() })
	base := acct.Username
	if !strings.Contains(base, "@") {
		base += "@example.test"
	}
	ts, err := tools.New(tools.Deps{Mail: mail, Inbox: mail, Inboxes: tools.InboxOptions{Address: base, WaitMax: 30 * time.Second}},
		tools.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e := &inboxEnv{mailEnv: &mailEnv{acct: acct, client: inProcessClient(t, ts)}, mail: mail, base: base}
	in, other := e.create(t, "slow"), e.create(t, "other")
	for i := range 40 {
		e.deliver(t, other.Address, "Other", "Your code is "+strconv.Itoa(100000+i)+".")
	}
	e.deliver(t, in.Address, "Mine", "Your code is 424242.")
	if code := waitCode(e, map[string]any{"inbox_id": in.InboxID, "since": 0, "timeout": 10}); code != "424242" {
		t.Errorf("wait_for_otp(since=0) behind 40 messages with a queue of 1 = %s, want 424242", code)
	}
}
