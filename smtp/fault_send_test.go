package smtp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/internal/faultproxy"
	"github.com/email-mcp/email-mcp/smtp"
)

// Submissions through a faultproxy that breaks the connection at every
// step: a send is a success only when the server answered 250 to the data
// (and then the message was delivered), and every failure is a typed
// error (ErrConnection or a timeout) that comes back within its deadline.

const (
	sendDeadline = 5 * time.Second // of every send
	sendTimeout  = 2 * time.Second // CommandTimeout and SubmissionTimeout
)

// faultSender is a Sender that reaches a recording server through a proxy.
func faultSender(t *testing.T, seed uint64, edit ...func(*smtp.Options)) (*smtp.Sender, *faultproxy.Proxy, *backend) {
	t.Helper()
	be := &backend{}
	port := newTestServer(t, plainServer, be)
	p := faultproxy.Start(t, faultproxy.Options{Target: fmt.Sprintf("127.0.0.1:%d", port), Seed: seed, ChunkSize: 1024})
	s := newSender(p.Port(), smtp.SecurityPlain, append([]func(*smtp.Options){func(o *smtp.Options) {
		o.DialTimeout, o.CommandTimeout, o.SubmissionTimeout = sendTimeout, sendTimeout, sendTimeout
	}}, edit...)...)
	return s, p, be
}

// bigMessage is a message of about n bytes, with a Message-ID of its own.
func bigMessage(n int) *smtp.Message {
	m := testMessage()
	m.Text = strings.Repeat("All work and no play makes a dull message.\n", n/44+1)
	return m
}

// sendOnce sends m under sendDeadline and the hang watchdog.
func sendOnce(t *testing.T, s *smtp.Sender, m *smtp.Message) error {
	t.Helper()
	var err error
	outcome := faultproxy.Once(t, nil, sendDeadline, func(ctx context.Context) string {
		_, err = s.Send(ctx, m.Envelope(), m)
		return sendKind(t, err)
	})
	if outcome == "hung" {
		t.FailNow()
	}
	return err
}

// sendKind names a send's outcome; an error of another kind than a broken
// connection or a timeout fails t.
func sendKind(t *testing.T, err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, smtp.ErrConnection):
		return "connection"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	t.Errorf("Send() = %v, want nil, ErrConnection or a timeout", err)
	return "unexpected"
}

// delivered counts the messages the server accepted with id in them.
func delivered(be *backend, id string) int {
	n := 0
	for _, r := range be.received() {
		if bytes.Contains(r.Data, []byte(id)) {
			n++
		}
	}
	return n
}

func TestFaultSendCuts(t *testing.T) {
	tests := []struct {
		name      string
		fault     func(p *faultproxy.Proxy)
		wantOK    bool
		delivered int // -1: either (the server may have accepted what the client never heard of)
		opts      func(*smtp.Options)
	}{
		{"cut mid-DATA", func(p *faultproxy.Proxy) { p.SetCutAfter(60 << 10) }, false, 0, nil},
		{"cut when the client says QUIT, after the 250", func(p *faultproxy.Proxy) {
			p.SetHook(func(d faultproxy.Direction, chunk []byte) faultproxy.Verdict {
				if d == faultproxy.Upstream && bytes.HasPrefix(chunk, []byte("QUIT")) {
					return faultproxy.Cut
				}
				return faultproxy.Forward
			})
		}, true, 1, nil},
		{"cut before the answer to the data", func(p *faultproxy.Proxy) {
			var dataSent atomic.Bool
			p.SetHook(func(d faultproxy.Direction, chunk []byte) faultproxy.Verdict {
				if d == faultproxy.Upstream && bytes.Contains(chunk, []byte("\r\n.\r\n")) {
					dataSent.Store(true)
				}
				if d == faultproxy.Downstream && dataSent.Load() && bytes.HasPrefix(chunk, []byte("250 ")) {
					return faultproxy.Cut
				}
				return faultproxy.Forward
			})
		}, false, -1, nil},
		{"stall in DATA", func(p *faultproxy.Proxy) {
			p.SetHook(func(d faultproxy.Direction, chunk []byte) faultproxy.Verdict {
				if d == faultproxy.Upstream && bytes.HasPrefix(chunk, []byte("DATA")) {
					p.Stall()
				}
				return faultproxy.Forward
			})
		}, false, 0, nil},
		{"server down", (*faultproxy.Proxy).Down, false, 0, nil},
		{"port closed", (*faultproxy.Proxy).Refuse, false, 0, nil},
		// 128 KiB at 64 KiB/s: twice CommandTimeout, within
		// SubmissionTimeout (the kernel's buffers take most of the message
		// at once, so the wait is mostly for the answer to the dot).
		{"slow but moving for longer than CommandTimeout", func(p *faultproxy.Proxy) { p.SetRate(64 << 10) }, true, 1,
			func(o *smtp.Options) { o.CommandTimeout, o.SubmissionTimeout = time.Second, 4*time.Second }},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faultproxy.CheckLeaks(t)
			var edits []func(*smtp.Options)
			if tt.opts != nil {
				edits = append(edits, tt.opts)
			}
			s, p, be := faultSender(t, uint64(i), edits...)
			defer p.Resume()
			tt.fault(p)
			m := bigMessage(128 << 10)
			err := sendOnce(t, s, m)
			if got := err == nil; got != tt.wantOK {
				t.Errorf("Send() = %v, want success %v", err, tt.wantOK)
			}
			if n := delivered(be, m.ID()); tt.delivered >= 0 && n != tt.delivered {
				t.Errorf("the server received the message %d times, want %d", n, tt.delivered)
			}
			ps := p.Stats()
			if wantCut := strings.HasPrefix(tt.name, "cut "); wantCut != (ps.Cuts > 0) {
				t.Errorf("the proxy cut %d times: want a cut %v (the fault must fire)", ps.Cuts, wantCut)
			}
			t.Logf("FAULTS: test=%s injected=1 (cuts=%d rejected=%d slowed_chunks=%d) calls=1 hung=0 lost=0 result=%s",
				t.Name(), ps.Cuts, ps.Rejected, ps.Slowed, sendKind(t, err))
		})
	}
}

// Sends from 8 goroutines under random cuts: a send that reports success
// was delivered, every time.
func TestFaultSendRandomCuts(t *testing.T) {
	faultproxy.CheckLeaks(t)
	s, p, be := faultSender(t, 42)
	p.SetCutProbability(0.03)
	var (
		mu  sync.Mutex
		ok  []string // Message-IDs of the sends that succeeded
		ty  = &faultproxy.Tally{}
		wg  sync.WaitGroup
		per = 12
	)
	for range 8 {
		wg.Go(func() {
			for range per {
				m := bigMessage(8 << 10)
				id := m.ID()
				outcome := faultproxy.Once(t, ty, sendDeadline, func(ctx context.Context) string {
					_, err := s.Send(ctx, m.Envelope(), m)
					return sendKind(t, err)
				})
				if outcome == "hung" {
					return
				}
				if outcome == "ok" {
					mu.Lock()
					ok = append(ok, id)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	lost := 0
	for _, id := range ok {
		if delivered(be, id) != 1 {
			lost++
		}
	}
	received := len(be.received())
	ps := p.Stats()
	t.Logf("FAULTS: test=%s injected=%d calls=%d hung=%d lost=%d successes=%d received=%d outcomes: %s",
		t.Name(), ps.Cuts, ty.Calls(), ty.Hung(), lost, len(ok), received, ty)
	if lost > 0 || received < len(ok) || received > ty.Calls() {
		t.Errorf("%d sends succeeded, %d of them not delivered once; the server received %d of %d sends", len(ok), lost, received, ty.Calls())
	}
	if ps.Cuts == 0 || len(ok) == 0 || ty.Count("connection") == 0 {
		t.Errorf("%d cuts, outcomes %s: want cuts that failed sends, and sends that succeeded", ps.Cuts, ty)
	}
}
