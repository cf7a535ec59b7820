package imap_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/faultproxy"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// The pool under network faults: 16 goroutines call the Client through a
// faultproxy while it cuts every connection, stalls, or goes down and up.
// They run in-process and, with EMAIL_MCP_TEST_DOVECOT=1, against Dovecot.
// Every call must answer (a result or ErrConnection / a timeout) within its
// deadline plus faultproxy.HangMargin; afterwards the pool must work again
// within a bounded number of calls, and no goroutine may be left behind.

const (
	faultWorkers  = 16
	faultDeadline = 3 * time.Second // of every call
	faultPoolSize = 4
	// Recovery after the fault: the pool's dial backoff is at most 5 s, so
	// 40 attempts 250 ms apart leave it room twice over.
	recoverAttempts = 40
	recoverPause    = 250 * time.Millisecond
)

// faultPool is a Client that reaches its account through a faultproxy.
type faultPool struct {
	acct   *mailtest.Account
	proxy  *faultproxy.Proxy
	client *imap.Client
	uids   []uint32 // in INBOX
}

// newFaultPool seeds INBOX with a few messages (directly, not through the
// proxy) and points a Client at the proxy. Call faultproxy.CheckLeaks
// before it.
func newFaultPool(t *testing.T, seed uint64) *faultPool {
	t.Helper()
	acct := mailtest.NewAccount(t)
	e := &faultPool{acct: acct}
	for i := range 20 {
		raw := fmt.Sprintf("From: Sender %d <s%d@example.test>\r\nTo: alice@example.test\r\nSubject: fault %d\r\n"+
			"Message-ID: <fault-%d@example.test>\r\nDate: Tue, 19 Mar 2024 10:00:00 +0000\r\n\r\nBody %d\r\n", i, i, i, i, i)
		e.uids = append(e.uids, acct.Append(t, "INBOX", []byte(raw)))
	}
	e.proxy = faultproxy.Start(t, faultproxy.Options{Target: acct.Addr(), Seed: seed})
	e.client = imap.New(imap.Options{
		Host: e.proxy.Host(), Port: e.proxy.Port(), Username: acct.Username, Password: acct.Password,
		Security: imap.SecurityPlain, PoolSize: faultPoolSize,
		DialTimeout: 2 * time.Second, CommandTimeout: 2 * time.Second,
	})
	t.Cleanup(func() { _ = e.client.Close() })
	return e
}

// call is one operation of the load, chosen by worker and turn, and its
// outcome: "ok", "connection" (ErrConnection) or "timeout"; anything else
// fails t.
func (e *faultPool) call(t *testing.T, ctx context.Context, w, n int) string {
	uid := e.uids[(w*7+n)%len(e.uids)]
	var err error
	switch (w + n) % 4 {
	case 0:
		_, err = e.client.ListFolders(ctx, true)
	case 1:
		_, err = e.client.Search(ctx, "INBOX", imap.SearchCriteria{Subject: "fault"}, imap.PageRequest{Limit: 10})
	case 2:
		_, err = e.client.FetchMessage(ctx, "INBOX", uid, 64<<10)
	case 3:
		on := n%2 == 0
		_, err = e.client.SetFlags(ctx, "INBOX", []uint32{uid}, imap.FlagChange{Flagged: &on})
	}
	return faultKind(t, err)
}

// faultKind names err as the fault tests expect it; an error of another
// kind (a cut reported as a protocol error, say) fails t.
func faultKind(t *testing.T, err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, imap.ErrConnection):
		return "connection"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	t.Errorf("call failed with %v, want ErrConnection or a timeout", err)
	return "unexpected"
}

// run puts the load on while fault runs, then heals the proxy, waits for a
// call to succeed, checks the pool and logs the counts. fault returns the
// number of outages it caused (a stall, a down time), which the proxy
// does not count.
func (e *faultPool) run(t *testing.T, fault func() int) *faultproxy.Tally {
	t.Helper()
	stop := make(chan struct{})
	var ty *faultproxy.Tally
	done := make(chan struct{})
	go func() {
		defer close(done)
		ty = faultproxy.Load(t, faultWorkers, faultDeadline, stop, func(ctx context.Context, w, n int) string {
			return e.call(t, ctx, w, n)
		})
	}()
	events := fault()
	close(stop)
	<-done
	if err := e.proxy.Heal(); err != nil {
		t.Fatalf("Heal() = %v", err)
	}
	tries := faultproxy.Recover(t, ty, recoverAttempts, recoverPause, faultDeadline, func(ctx context.Context) string {
		_, err := e.client.ListFolders(ctx, false)
		return faultKind(t, err)
	})
	if st := e.client.Stats(); st.InUse != 0 || st.Open > faultPoolSize {
		t.Errorf("pool after the load: %+v, want nothing in use and at most %d open", st, faultPoolSize)
	}
	ps := e.proxy.Stats()
	t.Logf("FAULTS: test=%s injected=%d (cuts=%d rejected=%d outages=%d) calls=%d hung=%d lost=0 recovered_after=%d outcomes: %s",
		t.Name(), ps.Cuts+ps.Rejected+uint64(events), ps.Cuts, ps.Rejected, events, ty.Calls(), ty.Hung(), tries, ty)
	return ty
}

// sleep pauses the fault script.
func sleep(d time.Duration) { time.Sleep(d) }

func TestFaultPoolCuts(t *testing.T) {
	faultproxy.CheckLeaks(t)
	e := newFaultPool(t, 1)
	cut := 0
	ty := e.run(t, func() int {
		for range 12 {
			sleep(150 * time.Millisecond)
			cut += e.proxy.CutAll()
		}
		sleep(150 * time.Millisecond)
		return 0
	})
	if cut == 0 || ty.Count("connection") == 0 || ty.Count("ok") == 0 {
		t.Errorf("%d connections cut, outcomes %s: want cuts that calls saw, and calls that succeeded", cut, ty)
	}
}

func TestFaultPoolStall(t *testing.T) {
	faultproxy.CheckLeaks(t)
	e := newFaultPool(t, 2)
	ty := e.run(t, func() int {
		sleep(300 * time.Millisecond)
		e.proxy.Stall()
		sleep(faultDeadline + time.Second) // past every call's deadline
		e.proxy.Resume()
		sleep(300 * time.Millisecond)
		return 1
	})
	if ty.Count("timeout") == 0 {
		t.Errorf("outcomes %s: want calls that timed out in the stall", ty)
	}
}

func TestFaultPoolRestart(t *testing.T) {
	tests := []struct {
		name string
		down func(p *faultproxy.Proxy)
	}{
		{"reset", (*faultproxy.Proxy).Down},
		{"refused", (*faultproxy.Proxy).Refuse},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faultproxy.CheckLeaks(t)
			e := newFaultPool(t, uint64(10+i))
			ty := e.run(t, func() int {
				sleep(300 * time.Millisecond)
				tt.down(e.proxy)
				e.proxy.CutAll()
				sleep(2 * time.Second)
				if err := e.proxy.Up(); err != nil {
					t.Errorf("Up() = %v", err)
				}
				sleep(300 * time.Millisecond)
				return 1
			})
			if ty.Count("connection") == 0 {
				t.Errorf("outcomes %s: want calls that failed while the server was down", ty)
			}
		})
	}
}
