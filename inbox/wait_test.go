package inbox_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/inbox"
)

// slowStore is an account whose next UIDNext, once held, does not reach
// the server before it is released: a wait queued behind a busy pool.
type slowStore struct {
	*imap.Client
	mu      sync.Mutex
	held    chan struct{} // closed when the held call arrives
	release chan struct{}
}

func (s *slowStore) hold() (held, release chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held, s.release = make(chan struct{}), make(chan struct{})
	return s.held, s.release
}

func (s *slowStore) UIDNext(ctx context.Context, folder string) (uint32, uint32, error) {
	s.mu.Lock()
	held, release := s.held, s.release
	s.held = nil
	s.mu.Unlock()
	if held != nil {
		close(held)
		<-release
	}
	return s.Client.UIDNext(ctx, folder)
}

// TestWaitSeesMailThatArrivesBeforeItsCutoffIsPinned: a wait without
// since takes the mail that arrives after the call started, also when it
// arrives before the call's UIDNEXT is read (another call read one
// meanwhile); the mail from before the call stays out. The cutoff used to
// be the UIDNEXT answered: with 1,000 waits queued on a pool of 3 it came
// seconds after the call, and one wait of 1,000 on Dovecot (scripts/bench
// waiters1000) timed out with its mail in the folder.
func TestWaitSeesMailThatArrivesBeforeItsCutoffIsPinned(t *testing.T) {
	var store *slowStore
	ib, acct := newInboxesOver(t, 0, func(c *imap.Client) inbox.Store { store = &slowStore{Client: c}; return store })
	ctx := context.Background()
	in, err := ib.Create(ctx, "slow")
	if err != nil {
		t.Fatalf("Create() = %v, want nil", err)
	}
	other, err := ib.Create(ctx, "other")
	if err != nil {
		t.Fatalf("Create() = %v, want nil", err)
	}
	deliver(t, acct, in.Address, "Before", "Your code is 111111.")

	held, release := store.hold()
	type result struct {
		found *inbox.Found
		err   error
	}
	slow := make(chan result, 1)
	go func() {
		timeout := 10.0
		found, err := ib.Wait(ctx, inbox.Wait{InboxID: in.ID, Want: inbox.Code, Timeout: &timeout})
		slow <- result{found, err}
	}()
	<-held // the slow call has started; its UIDNext waits
	// Another call reads the folder's UIDNEXT (a wait with since=0 that
	// finds its mail at once), then the slow call's mail arrives.
	deliver(t, acct, other.Address, "Other", "Your code is 333333.")
	var all inbox.Since
	if err := all.UnmarshalJSON([]byte(`0`)); err != nil {
		t.Fatal(err)
	}
	timeout := 10.0
	if _, err := ib.Wait(ctx, inbox.Wait{InboxID: other.ID, Want: inbox.Code, Since: all, Timeout: &timeout}); err != nil {
		t.Fatalf("Wait(other, since=0) = %v, want its code", err)
	}
	late := deliver(t, acct, in.Address, "After", "Your code is 222222.")
	close(release)
	r := <-slow
	if r.err != nil {
		t.Fatalf("Wait() = %v, want the code of uid %d (delivered after the call started)", r.err, late)
	}
	if r.found.Code.Code != "222222" || r.found.UID != late {
		t.Errorf("Wait() = code %q uid %d, want 222222 uid %d", r.found.Code.Code, r.found.UID, late)
	}
}

// TestWaitTakesMailOfALaterSecondBeforeItsCutoffIsPinned: a lone wait
// without since whose UIDNEXT is read late (no other call read one
// meanwhile) takes the mail that arrived in a later second than the call's
// start, before that read: its INTERNALDATE tells it came after the call.
func TestWaitTakesMailOfALaterSecondBeforeItsCutoffIsPinned(t *testing.T) {
	var store *slowStore
	ib, acct := newInboxesOver(t, 0, func(c *imap.Client) inbox.Store { store = &slowStore{Client: c}; return store })
	ctx := context.Background()
	in, err := ib.Create(ctx, "lone")
	if err != nil {
		t.Fatalf("Create() = %v, want nil", err)
	}
	// A first wait reads UIDNEXT after the mail from before.
	deliver(t, acct, in.Address, "Before", "Your code is 111111.")
	var all inbox.Since
	if err := all.UnmarshalJSON([]byte(`0`)); err != nil {
		t.Fatal(err)
	}
	timeout := 10.0
	if _, err := ib.Wait(ctx, inbox.Wait{InboxID: in.ID, Want: inbox.Code, Since: all, Timeout: &timeout}); err != nil {
		t.Fatalf("Wait(since=0) = %v, want its code", err)
	}
	held, release := store.hold()
	slow := make(chan error, 1)
	var found *inbox.Found
	go func() {
		var err error
		found, err = ib.Wait(ctx, inbox.Wait{InboxID: in.ID, Want: inbox.Code, Timeout: &timeout})
		slow <- err
	}()
	<-held
	now := time.Now()
	time.Sleep(now.Truncate(time.Second).Add(time.Second + 10*time.Millisecond).Sub(now)) // into the next second
	late := deliver(t, acct, in.Address, "After", "Your code is 222222.")
	close(release)
	if err := <-slow; err != nil {
		t.Fatalf("Wait() = %v, want the code of uid %d (delivered a second after the call started)", err, late)
	}
	if found.Code.Code != "222222" || found.UID != late {
		t.Errorf("Wait() = code %q uid %d, want 222222 uid %d", found.Code.Code, found.UID, late)
	}
}

// TestWaitTakesMailTheWatcherSawArriveAfterItsStart: a lone wait without
// since whose UIDNEXT is read late takes the mail that arrived in the
// call's own second, before that read, when the folder's watcher (polling
// for another waiter) had checked the folder after the call started.
func TestWaitTakesMailTheWatcherSawArriveAfterItsStart(t *testing.T) {
	var store *slowStore
	ib, acct := newInboxesOver(t, 10*time.Millisecond, func(c *imap.Client) inbox.Store { store = &slowStore{Client: c}; return store })
	ctx := context.Background()
	in, err := ib.Create(ctx, "seen")
	if err != nil {
		t.Fatalf("Create() = %v, want nil", err)
	}
	deliver(t, acct, in.Address, "Before", "Your code is 111111.")
	_, next, err := store.Client.UIDNext(ctx, "INBOX")
	if err != nil {
		t.Fatalf("UIDNext() = %v, want nil", err)
	}
	sub, err := store.Client.Subscribe(ctx, "INBOX", next-1) // another waiter
	if err != nil {
		t.Fatalf("Subscribe() = %v, want nil", err)
	}
	defer sub.Close()
	// Start early in a second: the mail comes within it, where its
	// INTERNALDATE cannot tell it from one just before the call.
	now := time.Now()
	time.Sleep(now.Truncate(time.Second).Add(time.Second + 5*time.Millisecond).Sub(now))
	held, release := store.hold()
	slow := make(chan error, 1)
	var found *inbox.Found
	timeout := 10.0
	go func() {
		var err error
		found, err = ib.Wait(ctx, inbox.Wait{InboxID: in.ID, Want: inbox.Code, Timeout: &timeout})
		slow <- err
	}()
	<-held
	started := time.Now()
	for i := 0; i < 1000; i++ { // bounded: a NOOP every 10 ms
		if _, n := store.Client.ArrivedAfter("INBOX", started); n != 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	late := deliver(t, acct, in.Address, "After", "Your code is 222222.")
	gap := time.Since(started)
	close(release)
	if err := <-slow; err != nil {
		t.Fatalf("Wait() = %v, want the code of uid %d (delivered %v after the call started)", err, late, gap)
	}
	if found.Code.Code != "222222" || found.UID != late {
		t.Errorf("Wait() = code %q uid %d, want 222222 uid %d", found.Code.Code, found.UID, late)
	}
}
