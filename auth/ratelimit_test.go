package auth_test

import (
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/auth"
)

// frozen is a clock that moves only when the test says so.
type frozen struct{ t time.Time }

func (f *frozen) now() time.Time { return f.t }

func TestLimiterPerKey(t *testing.T) {
	clock := &frozen{t: time.Unix(1_700_000_000, 0)}
	l := auth.NewLimiter(auth.LimiterOptions{PerMinute: 60, Now: clock.now}) // one a second, a burst of 30
	for i := range 30 {
		if wait := l.Take("one"); wait != 0 {
			t.Fatalf("call %d: Take = %v, want 0 within the burst of 30", i, wait)
		}
	}
	wait := l.Take("one")
	if wait <= 0 || wait > time.Second {
		t.Fatalf("call 31: Take = %v, want a wait in (0, 1s]", wait)
	}
	// A refused call takes nothing: the next token is still one second away.
	if again := l.Take("one"); again != wait {
		t.Errorf("call 32: Take = %v, want the same %v (a refusal must not use a token)", again, wait)
	}
	// Another key has its own bucket.
	if wait := l.Take("two"); wait != 0 {
		t.Errorf("other key: Take = %v, want 0", wait)
	}
	clock.t = clock.t.Add(time.Second)
	if wait := l.Take("one"); wait != 0 {
		t.Errorf("after one second: Take = %v, want 0 (one token refilled)", wait)
	}
}

func TestLimiterOff(t *testing.T) {
	l := auth.NewLimiter(auth.LimiterOptions{PerMinute: 0})
	for i := range 1000 {
		if wait := l.Take("k"); wait != 0 {
			t.Fatalf("call %d: Take = %v with the limit off", i, wait)
		}
	}
}

func TestBurst(t *testing.T) {
	for _, tt := range []struct{ perMinute, want int }{{1, 10}, {20, 10}, {120, 60}, {1200, 600}} {
		if got := auth.Burst(tt.perMinute); got != tt.want {
			t.Errorf("Burst(%d) = %d, want %d", tt.perMinute, got, tt.want)
		}
	}
}
