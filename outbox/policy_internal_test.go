package outbox

import (
	"errors"
	"testing"
	"time"
)

// TestWindow: the process's share of SEND_MAX_PER_HOUR counts sends in a
// sliding hour, as hourlyLimit does for one key in tools.
func TestWindow(t *testing.T) {
	var w window
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	for i := range 2 {
		if wait := w.take(t0.Add(time.Duration(i)*time.Minute), 2); wait != 0 {
			t.Fatalf("take %d = wait %v, want 0", i, wait)
		}
	}
	// Full; the oldest send (10:00) leaves at 11:00.
	if wait := w.take(t0.Add(10*time.Minute), 2); wait != 50*time.Minute {
		t.Fatalf("take over the limit = wait %v, want 50m", wait)
	}
	w.forget(t0.Add(time.Minute))
	if wait := w.take(t0.Add(11*time.Minute), 2); wait != 0 {
		t.Fatalf("take after forget = wait %v, want 0", wait)
	}
	if wait := w.take(t0.Add(12*time.Minute), 2); wait == 0 {
		t.Fatal("take beyond the limit again = 0, want a wait")
	}
	if wait := w.take(t0.Add(61*time.Minute), 2); wait != 0 {
		t.Fatalf("take an hour later = wait %v, want 0", wait)
	}
}

// TestPolicyAllowed: SEND_ALLOWED_RECIPIENTS matches addresses, domains
// and *.domains in any case, and an IDN domain as its punycode; a refusal
// names every refused recipient.
func TestPolicyAllowed(t *testing.T) {
	p := newPolicy([]string{"Boss@Example.test", "partner.test", "*.corp.test", "bücher.test"}, 0)
	for addr, want := range map[string]bool{
		"boss@example.test": true, "BOSS@EXAMPLE.TEST": true, "other@example.test": false,
		"a@partner.test": true, "a@sub.partner.test": false,
		"a@x.corp.test": true, "a@corp.test": false, "a@xcorp.test": false,
		"a@xn--bcher-kva.test": true, "a@evil.test": false, "no-at-sign": false,
	} {
		if got := p.allowed(addr); got != want {
			t.Errorf("allowed(%q) = %v, want %v", addr, got, want)
		}
	}
	err := p.checkRecipients([]string{"a@partner.test", "x@evil.test", "y@evil.test"})
	var oe *Error
	if !errors.As(err, &oe) || oe.Kind != KindRecipientNotAllowed || len(oe.Details["refused"].([]string)) != 2 {
		t.Errorf("checkRecipients = %v, want KindRecipientNotAllowed refusing 2", err)
	}
	if newPolicy(nil, 0).checkRecipients([]string{"x@evil.test"}) != nil {
		t.Error("no allow-list refused a recipient")
	}
}
