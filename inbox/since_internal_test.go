package inbox

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSinceForms: every form of since that users write (mailsocket's
// since=0 included) decodes to what it means; absurd ones are argument
// errors that say what is accepted.
func TestSinceForms(t *testing.T) {
	now := time.Now()
	today := now.UTC().Format(time.DateOnly)
	midnight, _ := time.Parse(time.DateOnly, today)
	sec := now.Add(-time.Hour).Unix()
	at := time.Unix(sec, 0)
	tests := []struct {
		json string
		kind sinceKind
		at   time.Time
		uid  uint32
	}{
		{`0`, sinceAll, time.Time{}, 0},
		{`"0"`, sinceAll, time.Time{}, 0},
		{`0.0`, sinceAll, time.Time{}, 0},
		{`" 0 "`, sinceAll, time.Time{}, 0},
		{`""`, sinceNone, time.Time{}, 0},
		{`null`, sinceNone, time.Time{}, 0},
		{itoa(sec), sinceTime, at, 0},
		{`"` + itoa(sec) + `"`, sinceTime, at, 0},
		{itoa(sec) + `.5`, sinceTime, at.Add(500 * time.Millisecond), 0},
		{itoa(sec*1000 + 250), sinceTime, at.Add(250 * time.Millisecond), 0},
		{`"` + itoa(sec*1000) + `"`, sinceTime, at, 0},
		{`1`, sinceTime, time.Unix(1, 0), 0},
		{`"` + at.UTC().Format(time.RFC3339) + `"`, sinceTime, at, 0},
		{`"` + at.Format("2006-01-02T15:04:05.000-07:00") + `"`, sinceTime, at, 0},
		{`"` + at.UTC().Format("2006-01-02T15:04:05.000Z") + `"`, sinceTime, at, 0},
		{`"` + strings.ToLower(at.UTC().Format(time.RFC3339)) + `"`, sinceTime, at, 0},
		{`"` + at.UTC().Format("2006-01-02T15:04:05") + `"`, sinceTime, at, 0},
		{`"` + at.UTC().Format("2006-01-02 15:04:05") + `"`, sinceTime, at, 0},
		{`"` + today + `"`, sinceTime, midnight, 0},
		{`"msg_7_0"`, sinceID, time.Time{}, 0},
		{`"msg_7_42"`, sinceID, time.Time{}, 42},
	}
	for _, tt := range tests {
		var s Since
		if err := json.Unmarshal([]byte(tt.json), &s); err != nil {
			t.Errorf("since %s: %v, want it accepted", tt.json, err)
			continue
		}
		if s.kind != tt.kind || !s.at.Equal(tt.at) || s.uid != tt.uid {
			t.Errorf("since %s = {kind %d, at %v, uid %d}, want {kind %d, at %v, uid %d}", tt.json, s.kind, s.at, s.uid, tt.kind, tt.at, tt.uid)
		}
	}
	bad := []string{
		`"yesterday"`, `-1`, `"-5"`, `"msg_0_1"`, `"msg_7"`, `"msg_7_x"`, `true`, `{}`, `[0]`, `"NaN"`, `"Inf"`, `"0x10"`, `"1e400"`,
		`99999999999999999`, `"` + itoa(now.Add(48*time.Hour).UnixMilli()) + `"`, `"2999-01-01"`, `"1969-12-31T23:59:59Z"`,
		`"` + strings.Repeat("1", 80) + `"`,
	}
	for _, b := range bad {
		var s Since
		err := json.Unmarshal([]byte(b), &s)
		var ae *Error
		if err == nil || !asArgError(err, &ae) || !strings.Contains(ae.Msg, "since") {
			t.Errorf("since %s: err = %v, want an argument error about since", b, err)
		}
	}
}

func asArgError(err error, target **Error) bool {
	ae, ok := err.(*Error)
	*target = ae
	return ok && ae.Kind == Invalid
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestArrivalsBefore: a UIDNEXT read at a moment counts for every cutoff at
// or after it, never for one before.
func TestArrivalsBefore(t *testing.T) {
	var a arrivals
	t0 := time.Now()
	a.add(t0.Add(2*time.Second), 5, 30)
	a.add(t0, 5, 10)
	a.add(t0.Add(time.Second), 6, 99) // another UIDVALIDITY
	a.add(t0.Add(3*time.Second), 5, 30)
	for _, tt := range []struct {
		at   time.Time
		want uint32
	}{
		{t0.Add(-time.Millisecond), 0},
		{t0, 10},
		{t0.Add(1500 * time.Millisecond), 10},
		{t0.Add(2 * time.Second), 30},
		{t0.Add(time.Hour), 30},
	} {
		if got := a.before(tt.at, 5); got != tt.want {
			t.Errorf("before(t0%+v) = %d, want %d", tt.at.Sub(t0), got, tt.want)
		}
	}
}
