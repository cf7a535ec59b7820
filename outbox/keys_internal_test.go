package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// newTestSendLog is a sendLog over a mailtest account (in-process, or
// Dovecot on the tier) that waits wait for a key's first send.
func newTestSendLog(t *testing.T, wait time.Duration) (*sendLog, *mailtest.Account) {
	t.Helper()
	acct := mailtest.NewAccount(t)
	c := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password, Security: imap.SecurityPlain, PoolSize: 3})
	t.Cleanup(func() { _ = c.Close() })
	return &sendLog{store: c, local: newPolicy(nil, 0), log: slog.New(slog.DiscardHandler), ownerWait: wait}, acct
}

// TestKeyInProgress: a repeat while the first send of its key is still
// running never runs a second time: after the wait it answers RATE_LIMITED
// with in_progress (retryable); once the first has finished, a repeat
// answers its result with replayed.
func TestKeyInProgress(t *testing.T) {
	l, _ := newTestSendLog(t, 300*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	started, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		_, err := l.once(ctx, "send_email", "slow", func(context.Context) (any, error) {
			close(started)
			<-release
			return map[string]any{"message_id": "first@example.test"}, nil
		})
		first <- err
	}()
	<-started
	runs := 0
	_, err := l.once(ctx, "send_email", "slow", func(context.Context) (any, error) { runs++; return nil, nil })
	var oe *Error
	if !errors.As(err, &oe) || oe.Kind != KindRateLimited || oe.Details["in_progress"] != true || runs != 0 {
		t.Errorf("repeat during the first send = %v (ran %d times), want RATE_LIMITED in_progress, not run", err, runs)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("first send = %v", err)
	}
	out, err := l.once(ctx, "send_email", "slow", func(context.Context) (any, error) { runs++; return nil, nil })
	m, _ := out.(map[string]any)
	if err != nil || runs != 0 || m["message_id"] != "first@example.test" || m["replayed"] != true {
		t.Errorf("repeat after the first send = %v, %v (ran %d times), want its result replayed", out, err, runs)
	}
}

// TestKeyStaleClaim: a claim older than claimStale with no result is a
// send whose replica stopped mid-way: the repeat is not run and answers
// maybe_delivered.
func TestKeyStaleClaim(t *testing.T) {
	l, acct := newTestSendLog(t, 300*time.Millisecond)
	acct.CreateFolder(t, keyFolder)
	raw := fmt.Sprintf("From: email-mcp <send-records@email-mcp.invalid>\r\nSubject: email-mcp send record (claim)\r\n%s: claim stale\r\n%s: %s\r\n%s: send_email\r\n\r\nx\r\n",
		recordHeader, keyHeader, keyHash("stopped"), toolHeader)
	acct.AppendAt(t, keyFolder, []byte(raw), time.Now().Add(-time.Hour))
	runs := 0
	_, err := l.once(context.Background(), "send_email", "stopped", func(context.Context) (any, error) { runs++; return nil, nil })
	var oe *Error
	if !errors.As(err, &oe) || oe.Kind != KindConnectionFailed || oe.Details["maybe_delivered"] != true || runs != 0 {
		t.Errorf("repeat of a stale claim = %v (ran %d times), want CONNECTION_FAILED maybe_delivered, not run", err, runs)
	}
}
