package imap_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
)

func TestPoolBound(t *testing.T) {
	ts := newTestServer(t, modePlain, nil)
	seedFolders(t, ts)
	opts := clientOptions(t, ts.Port, modePlain)
	opts.PoolSize = 3
	c := newClient(t, opts)

	const calls = 50
	errs := make(chan error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			_, err := c.ListFolders(context.Background(), i%2 == 0)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("ListFolders() = %v, want nil", err)
		}
	}
	total, maxOpen := ts.ln.stats()
	if maxOpen > 3 || total > 3 {
		t.Errorf("server saw %d connections, at most %d at once; want at most 3", total, maxOpen)
	}
	if st := c.Stats(); st.Open > 3 || st.InUse != 0 || st.Idle != st.Open {
		t.Errorf("Stats() = %+v after all calls, want ≤3 open, all idle", st)
	}
}

func TestRecoveryAfterServerHangUp(t *testing.T) {
	ts := newTestServer(t, modePlain, nil)
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	for range 2 {
		if err := c.Noop(context.Background()); err != nil {
			t.Fatalf("Noop() = %v, want nil", err)
		}
	}
	ts.ln.closeAll()
	// The pooled connection is dead. A call may fail while the pool finds
	// out, but one of the next three must succeed.
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		if _, err = c.ListFolders(context.Background(), true); err == nil {
			break
		}
		if !errors.Is(err, imap.ErrConnection) {
			t.Errorf("attempt %d: ListFolders() = %v, want nil or ErrConnection", attempt, err)
		}
	}
	if err != nil {
		t.Fatalf("ListFolders() after server hang-up still fails after 3 calls: %v", err)
	}
	if st := c.Stats(); st.Dials < 2 {
		t.Errorf("Stats().Dials = %d, want a new dial after the hang-up", st.Dials)
	}
}

func TestClose(t *testing.T) {
	ts := newTestServer(t, modePlain, nil)
	before := runtime.NumGoroutine()
	c := imap.New(clientOptions(t, ts.Port, modePlain))

	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if _, err := c.ListFolders(context.Background(), true); err != nil {
				t.Errorf("ListFolders() = %v, want nil", err)
			}
		})
	}
	wg.Wait()
	if err := c.Close(); err != nil {
		t.Errorf("Close() = %v, want nil", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
	if _, err := c.ListFolders(context.Background(), false); !errors.Is(err, imap.ErrClosed) {
		t.Errorf("ListFolders() after Close = %v, want ErrClosed", err)
	}
	if err := c.Noop(context.Background()); !errors.Is(err, imap.ErrClosed) {
		t.Errorf("Noop() after Close = %v, want ErrClosed", err)
	}
	if st := c.Stats(); st.Open != 0 || st.Idle != 0 {
		t.Errorf("Stats() after Close = %+v, want nothing open", st)
	}
	// Client goroutines (imapclient readers) and the server's per-connection
	// ones must all end. Bounded poll: 100 × 50 ms.
	n := runtime.NumGoroutine()
	for i := 0; i < 100 && n > before; i++ {
		time.Sleep(50 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	if n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

func TestCloseWakesWaitersAndClosesInUse(t *testing.T) {
	seen := make(chan string, 16)
	port := scriptedServer(t, seen)
	opts := clientOptions(t, port, modePlain)
	opts.Password = "pw"
	opts.PoolSize = 1
	c := imap.New(opts)

	// The first call holds the only connection: the server never answers.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan error, 1)
	go func() { _, err := c.ListFolders(ctx, false); first <- err }()
	select {
	case <-seen:
	case <-time.After(10 * time.Second):
		t.Fatal("server never received the first LIST")
	}
	// The second waits for the token; Close must wake it.
	second := make(chan error, 1)
	go func() { second <- c.Noop(context.Background()) }()
	c.Close()
	err := within(t, 10*time.Second, func() error { return <-second })
	if !errors.Is(err, imap.ErrClosed) {
		t.Errorf("waiting Noop() = %v, want ErrClosed", err)
	}
	cancel()
	err = within(t, 10*time.Second, func() error { return <-first })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("in-flight ListFolders() = %v, want context.Canceled", err)
	}
	if st := c.Stats(); st.Open != 0 || st.InUse != 0 {
		t.Errorf("Stats() = %+v, want the in-use connection closed on return", st)
	}
}

func TestGetWaitsOnContext(t *testing.T) {
	seen := make(chan string, 16)
	port := scriptedServer(t, seen)
	opts := clientOptions(t, port, modePlain)
	opts.Password = "pw"
	opts.PoolSize = 1
	c := newClient(t, opts)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan error, 1)
	go func() { _, err := c.ListFolders(ctx, false); first <- err }()
	select {
	case <-seen:
	case <-time.After(10 * time.Second):
		t.Fatal("server never received the first LIST")
	}
	err := within(t, 10*time.Second, func() error { return c.Noop(ctxTimeout(t, 100*time.Millisecond)) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Noop() waiting for a full pool = %v, want context.DeadlineExceeded", err)
	}
	if st := c.Stats(); st.Dials != 1 {
		t.Errorf("Stats().Dials = %d, want 1: the waiter must not dial past PoolSize", st.Dials)
	}
	cancel()
	<-first
}

func BenchmarkListFolders(b *testing.B) {
	ts := newTestServer(b, modePlain, nil)
	for _, name := range []string{"Sent", "Drafts", "Trash", "Archive", "Listes/go-nuts"} {
		ts.addFolder(b, name, "")
	}
	for _, counts := range []bool{false, true} {
		name := "names"
		if counts {
			name = "counts"
		}
		b.Run(name, func(b *testing.B) {
			c := newClient(b, clientOptions(b, ts.Port, modePlain))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := c.ListFolders(context.Background(), counts); err != nil {
						b.Errorf("ListFolders() = %v", err)
						return
					}
				}
			})
		})
	}
}

func TestPoolBoundMixedOperations(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	seedSearch(t, ts, "INBOX")
	ts.addFolder(t, "Other", "")
	seedSearch(t, ts, "Other")
	opts := clientOptions(t, ts.Port, modePlain)
	opts.PoolSize = 3
	c := newClient(t, opts)

	const calls = 50
	errs := make(chan error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			folder := []string{"INBOX", "Other"}[i%2]
			var err error
			switch i % 3 {
			case 0:
				var res *imap.SearchResult
				res, err = c.Search(context.Background(), folder, imap.SearchCriteria{From: "alice"}, imap.PageRequest{Limit: 5})
				if err == nil && res.Total != 2 {
					err = fmt.Errorf("Search() found %d, want 2", res.Total)
				}
			case 1:
				_, err = c.FetchMessage(context.Background(), folder, uint32(1+i%6), 4096)
			default:
				_, err = c.Search(context.Background(), folder, imap.SearchCriteria{}, imap.PageRequest{Limit: 3, BeforeUID: 5})
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent call = %v, want nil", err)
		}
	}
	total, maxOpen := ts.ln.stats()
	if maxOpen > 3 || total > 3 {
		t.Errorf("server saw %d connections, at most %d at once; want at most 3", total, maxOpen)
	}
	if st := c.Stats(); st.Open > 3 || st.InUse != 0 || st.Discards != 0 {
		t.Errorf("Stats() = %+v after all calls, want ≤3 open, none discarded", st)
	}
}
