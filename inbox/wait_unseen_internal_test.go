package inbox

import (
	"testing"
	"time"
)

// TestUnseenFrom: from(t) is the lowest UIDNEXT asked for at or after t in
// the validity, whatever order the answers came in; a moment that says
// less than a later one is dropped without changing an answer.
func TestUnseenFrom(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	var u unseen
	u.add(at(30), 1, 120) // answered late, after the next two
	u.add(at(10), 1, 100)
	u.add(at(20), 1, 100) // says more than the one at 10
	u.add(at(40), 1, 130)
	u.add(at(25), 7, 5) // another UIDVALIDITY
	for _, tt := range []struct {
		ms       int
		validity uint32
		want     uint32
	}{{0, 1, 100}, {10, 1, 100}, {15, 1, 100}, {20, 1, 100}, {21, 1, 120}, {31, 1, 130}, {41, 1, 0}, {0, 7, 5}, {26, 7, 0}, {0, 2, 0}} {
		if got := u.from(at(tt.ms), tt.validity); got != tt.want {
			t.Errorf("from(+%dms, %d) = %d, want %d", tt.ms, tt.validity, got, tt.want)
		}
	}
	if len(u.list) != 4 {
		t.Errorf("kept %d moments (%v), want 4: the one at +10ms says less than +20ms", len(u.list), u.list)
	}
	for i := range 2 * maxUnseen {
		u.add(at(100+i), 1, uint32(200+i))
	}
	if len(u.list) > maxUnseen {
		t.Errorf("kept %d moments, want at most %d", len(u.list), maxUnseen)
	}
	if got := u.from(at(100+2*maxUnseen-1), 1); got != uint32(200+2*maxUnseen-1) {
		t.Errorf("from(latest) = %d, want %d", got, 200+2*maxUnseen-1)
	}
}
