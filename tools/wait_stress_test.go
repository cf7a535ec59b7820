package tools_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/inboxtools"
	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/tools"
)

// stressInboxes and stressRounds size TestWaitsUnderLoad: the issue's
// 200 concurrent waits on mail already delivered, 20 times.
const (
	stressInboxes = 200
	stressRounds  = 20
)

// sinceForm is one way of writing a past since: a moment before the
// test's first mail, or before this round's.
type sinceForm struct {
	name string
	arg  func(s *stressState, i int) any
}

// stressState is what the forms are computed from.
type stressState struct {
	start   time.Time // before any mail of the test
	roundAt time.Time // before this round's mail
	prevID  []string  // per inbox: the id of its previous mail (or a next_since before it)
}

var sinceForms = []sinceForm{
	{"zero number", func(*stressState, int) any { return 0 }},
	{"zero string", func(*stressState, int) any { return "0" }},
	{"one string", func(*stressState, int) any { return "1" }},
	{"unix seconds", func(s *stressState, _ int) any { return s.start.Unix() }},
	{"unix seconds string", func(s *stressState, _ int) any { return strconv.FormatInt(s.start.Unix(), 10) }},
	{"unix milliseconds", func(s *stressState, _ int) any { return strconv.FormatInt(s.start.UnixMilli(), 10) }},
	{"rfc3339", func(s *stressState, _ int) any { return s.start.Format(time.RFC3339) }},
	{"rfc3339 without zone", func(s *stressState, _ int) any { return s.start.UTC().Format("2006-01-02T15:04:05") }},
	{"date", func(s *stressState, _ int) any { return s.start.UTC().Format(time.DateOnly) }},
	{"toISOString of the round", func(s *stressState, _ int) any { return s.roundAt.UTC().Format("2006-01-02T15:04:05.000Z") }},
	{"id", func(s *stressState, i int) any { return s.prevID[i] }},
}

// stressCode is the code of inbox i's mail of round r: unique in the test.
func stressCode(r, i int) string { return strconv.Itoa(100000 + r*1000 + i) }

// TestWaitsUnderLoad: 200 inboxes, one mail each per round, then 200
// concurrent wait_for_otp with a past since in every accepted form, 20
// rounds: every wait returns its inbox's code (each round's mail is moved
// out after it). Then 200 waits
// started before their mail: none is lost. In the sandbox (mail by SMTP)
// and on the mailtest account (in-process, or Dovecot on the tier).
func TestWaitsUnderLoad(t *testing.T) {
	t.Run("sandbox", func(t *testing.T) {
		env := newTestEnv(t, tools.Options{})
		e := &inboxEnv{mailEnv: sandboxClient(t, env), mail: env.mail}
		runWaitStress(t, e, func(t *testing.T, to, body string) {
			smtpSend(t, env.sandbox.SMTPAddr(), to, "Your code", body)
		})
	})
	t.Run("account", func(t *testing.T) {
		e := newInboxEnv(t)
		runWaitStress(t, e, func(t *testing.T, to, body string) { e.deliver(t, to, "Your code", body) })
	})
}

func runWaitStress(t *testing.T, e *inboxEnv, deliver func(t *testing.T, to, body string)) {
	inboxes := make([]inboxtools.CreateInboxResult, stressInboxes)
	for i := range inboxes {
		inboxes[i] = e.create(t, fmt.Sprintf("stress-%d", i))
	}
	st := &stressState{prevID: make([]string, stressInboxes)}
	before := e.nextSince(t, inboxes[0].InboxID) // an id before any mail: valid for every inbox of the folder
	for i := range st.prevID {
		st.prevID[i] = before
	}
	var validity, firstUID uint32
	if _, err := fmt.Sscanf(before, "msg_%d_%d", &validity, &firstUID); err != nil {
		t.Fatalf("next_since %q: %v", before, err)
	}
	firstUID++
	const done = "stress-done"
	if err := e.mail.CreateFolder(context.Background(), done); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // start is in a second before every mail
	st.start = time.Now().Add(-time.Second)
	for r := range stressRounds {
		st.roundAt = time.Now()
		for i, in := range inboxes {
			deliver(t, in.Address, "Your verification code is "+stressCode(r, i)+".")
		}
		type answer struct {
			form, want, got string
		}
		answers := make([]answer, stressInboxes)
		var wg sync.WaitGroup
		for i, in := range inboxes {
			f := sinceForms[(i+r)%len(sinceForms)]
			want := stressCode(r, i)
			args := map[string]any{"inbox_id": in.InboxID, "since": f.arg(st, i), "timeout": 15}
			wg.Go(func() {
				answers[i] = answer{form: f.name, want: want, got: waitCode(e, args)}
			})
		}
		wg.Wait()
		bad := 0
		for i, a := range answers {
			if a.got != a.want {
				bad++
				if bad <= 5 {
					t.Errorf("round %d, inbox %d, since %s: got %s, want code %s", r, i, a.form, a.got, a.want)
				}
			}
		}
		if bad > 0 {
			t.Fatalf("round %d: %d of %d waits with a past since went wrong", r, bad, stressInboxes)
		}
		uids := make([]uint32, stressInboxes)
		for i := range inboxes { // the mail went in one after the other: consecutive UIDs
			uids[i] = firstUID + uint32(r*stressInboxes+i)
			st.prevID[i] = fmt.Sprintf("msg_%d_%d", validity, uids[i])
		}
		// The round's mail leaves the folder, so that the next round's
		// since before all mail finds only its own.
		if n, err := e.mail.MoveMany(context.Background(), "INBOX", uids, done); err != nil || n != stressInboxes {
			t.Fatalf("MoveMany(round %d) = %d, %v", r, n, err)
		}
	}
	waitsBeforeDelivery(t, e, inboxes, st, deliver)
}

// waitsBeforeDelivery starts a wait per inbox (half without since, half
// after the inbox's last id), waits until all are subscribed, delivers, and
// wants every code.
func waitsBeforeDelivery(t *testing.T, e *inboxEnv, inboxes []inboxtools.CreateInboxResult, st *stressState,
	deliver func(t *testing.T, to, body string)) {
	const r = stressRounds
	got := make([]string, len(inboxes))
	var wg sync.WaitGroup
	for i, in := range inboxes {
		args := map[string]any{"inbox_id": in.InboxID, "timeout": 30}
		if i%2 == 1 {
			args["since"] = st.prevID[i]
		}
		wg.Go(func() { got[i] = waitCode(e, args) })
	}
	for i := 0; i < 1500 && e.mail.WatchStats().Subscribers < len(inboxes); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if n := e.mail.WatchStats().Subscribers; n < len(inboxes) {
		t.Fatalf("%d of %d waits subscribed", n, len(inboxes))
	}
	for i, in := range inboxes {
		deliver(t, in.Address, "Your verification code is "+stressCode(r, i)+".")
	}
	wg.Wait()
	lost := 0
	for i := range inboxes {
		if got[i] != stressCode(r, i) {
			lost++
			if lost <= 5 {
				t.Errorf("wait started before delivery, inbox %d: got %s, want %s", i, got[i], stressCode(r, i))
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d waits started before their mail lost it", lost, len(inboxes))
	}
}

// waitCode runs wait_for_otp and returns the code, or the error's text.
func waitCode(e *inboxEnv, args map[string]any) string {
	res, err := tryCallTool(e.client, "wait_for_otp", args)
	if err != nil {
		return "error: " + err.Error()
	}
	if res.IsError {
		return fmt.Sprint(res.Content)
	}
	b, _ := res.StructuredContent.(map[string]any)
	if otp, ok := b["otp"].(string); ok {
		return otp
	}
	return strings.TrimSpace(fmt.Sprint(res.StructuredContent))
}

// TestWaitSinceRefused: a since that cannot be a cutoff is INVALID_ARGUMENT
// (not retryable), never INTERNAL: a time far in the future (a millisecond
// value of the future, a year 2999), before 1970, or no form at all.
func TestWaitSinceRefused(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "refused")
	future := time.Now().Add(72 * time.Hour)
	for _, since := range []any{
		strconv.FormatInt(future.UnixMilli(), 10), future.UnixMilli(), future.Unix(), "2999-01-01", "58886-01-01T00:00:00Z",
		"1969-12-31T00:00:00Z", -1, "yesterday", "msg_1_999999", 1e300,
	} {
		res := callTool(t, e.client, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 1})
		var body struct {
			Error struct {
				Code      string `json:"code"`
				Message   string `json:"message"`
				Retryable bool   `json:"retryable"`
			} `json:"error"`
		}
		structured(t, res, &body)
		if !res.IsError || body.Error.Code != "INVALID_ARGUMENT" || body.Error.Retryable || !strings.Contains(body.Error.Message, "since") {
			t.Errorf("wait_for_otp(since=%v) = %+v, want INVALID_ARGUMENT about since, not retryable", since, body.Error)
		}
	}
}

// TestWaitSinceSameSecond: a cutoff taken just before a mail, in the same
// second (as toISOString gives it), never loses that mail, though
// INTERNALDATE has whole seconds; and the previous mail, of the same
// second but seen arrive before the cutoff, is not returned; 10 of 10.
func TestWaitSinceSameSecond(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "second")
	for i := range 10 {
		// The cutoff has milliseconds: it is taken in a millisecond after
		// the previous wait's, whose mail is then known to be before it.
		time.Sleep(2 * time.Millisecond)
		since := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
		code := strconv.Itoa(700000 + i)
		e.deliver(t, in.Address, "Code", "Your code is "+code+".")
		var got inboxtools.WaitOTPResult
		e.call(t, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 3}, &got)
		if got.OTP != code {
			t.Errorf("try %d: wait_for_otp(since=%s) = %s, want %s", i, since, got.OTP, code)
		}
	}
}

// TestWaitSinceJustAfterMail: a cutoff taken just after a mail, in the same
// second, does not return that mail once the folder's watcher (running for
// an earlier wait) has seen it arrive: the arrival order decides inside the
// second that INTERNALDATE cannot split; 10 of 10.
func TestWaitSinceJustAfterMail(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "after")
	e.nextSince(t, in.InboxID) // starts the watcher, which lingers
	seen := 50 * time.Millisecond
	if mailtest.Dovecot() {
		seen = 1500 * time.Millisecond // Dovecot reports new mail to IDLE 0.5 s late, checking every 1 s
	}
	for i := range 10 {
		old, fresh := strconv.Itoa(400000+i), strconv.Itoa(800000+i)
		e.deliver(t, in.Address, "Old", "Your code is "+old+".")
		time.Sleep(seen) // the cutoff comes after the watcher saw the mail
		since := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
		e.deliver(t, in.Address, "New", "Your code is "+fresh+".")
		var got inboxtools.WaitOTPResult
		e.call(t, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 5}, &got)
		if got.OTP != fresh {
			t.Errorf("try %d: wait_for_otp(since=%s) = %s, want %s (%s arrived before the cutoff)", i, since, got.OTP, fresh, old)
		}
	}
}
