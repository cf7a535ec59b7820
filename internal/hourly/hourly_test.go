package hourly

import (
	"testing"
	"time"
)

func TestHourlyLimit(t *testing.T) {
	var l Limit
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	limits := map[string]int{"a": 2, "all": 3}
	for i := range 2 {
		if w := l.Take(t0.Add(time.Duration(i)*time.Minute), limits); w != 0 {
			t.Fatalf("take %d = wait %v, want 0", i, w)
		}
	}
	// "a" is full; its oldest event (10:00) leaves at 11:00.
	if w := l.Take(t0.Add(10*time.Minute), limits); w != 50*time.Minute {
		t.Fatalf("take over the limit = wait %v, want 50m", w)
	}
	// A refused take recorded nothing: "all" still has room for another key.
	if w := l.Take(t0.Add(10*time.Minute), map[string]int{"b": 1, "all": 3}); w != 0 {
		t.Fatalf("take of another key = wait %v, want 0", w)
	}
	l.Forget("a", t0.Add(time.Minute))
	if w := l.Take(t0.Add(11*time.Minute), map[string]int{"a": 2}); w != 0 {
		t.Fatalf("take after forget = wait %v, want 0", w)
	}
	if w := l.Take(t0.Add(12*time.Minute), map[string]int{"a": 2}); w == 0 {
		t.Fatal("take beyond the limit again = 0, want a wait")
	}
	if w := l.Take(t0.Add(61*time.Minute), map[string]int{"a": 2}); w != 0 {
		t.Fatalf("take an hour later = wait %v, want 0", w)
	}
}
