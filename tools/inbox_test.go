package tools_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/inboxtools"
	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/tools"
)

// inboxEnv is the inbox toolset over a mailtest account (in-process, or
// Dovecot on the tier).
type inboxEnv struct {
	*mailEnv
	mail *imap.Client
	base string // the account's base address
}

func newInboxEnv(t testing.TB) *inboxEnv {
	t.Helper()
	return newInboxEnvAt(t, "")
}

// newInboxEnvAt is newInboxEnv with INBOX_ADDRESS base; "" derives it from
// the account's user name.
func newInboxEnvAt(t testing.TB, base string) *inboxEnv {
	t.Helper()
	return newInboxEnvOn(t, mailtest.NewAccount(t), base)
}

// newInboxEnvOn is newInboxEnvAt on the account acct.
func newInboxEnvOn(t testing.TB, acct *mailtest.Account, base string) *inboxEnv {
	t.Helper()
	mail := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password, Security: imap.SecurityPlain, PoolSize: 3})
	t.Cleanup(func() { _ = mail.Close() })
	if base == "" {
		base = acct.Username
		if !strings.Contains(base, "@") {
			base += "@example.test"
		}
	}
	ts, err := tools.New(tools.Deps{Mail: mail, Inbox: mail,
		Inboxes: tools.InboxOptions{Address: base, WaitMax: 30 * time.Second, ProgressEvery: 100 * time.Millisecond}},
		tools.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	c := inProcessClient(t, ts)
	return &inboxEnv{mailEnv: &mailEnv{acct: acct, client: c}, mail: mail, base: base}
}

// deliver appends a mail to INBOX as an app under test would send it.
func (e *inboxEnv) deliver(t testing.TB, to, subject, body string) uint32 {
	t.Helper()
	raw := fmt.Sprintf("From: Shop <no-reply@shop.example>\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%d@shop.example>\r\n"+
		"Date: %s\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n", to, subject, time.Now().UnixNano(), time.Now().Format(time.RFC1123Z), body)
	return e.acct.Append(t, "INBOX", []byte(raw))
}

func (e *inboxEnv) create(t testing.TB, label string) inboxtools.CreateInboxResult {
	t.Helper()
	var r inboxtools.CreateInboxResult
	e.call(t, "create_inbox", map[string]any{"label": label}, &r)
	return r
}

// nextSince runs a wait that times out at once and returns its next_since.
func (e *inboxEnv) nextSince(t testing.TB, inbox string) string {
	t.Helper()
	res := callTool(t, e.client, "wait_for_email", map[string]any{"inbox_id": inbox, "timeout": 0.2})
	var body struct {
		Error struct {
			Code      string `json:"code"`
			NextSince string `json:"next_since"`
		} `json:"error"`
	}
	structured(t, res, &body)
	if body.Error.Code != "WAIT_TIMEOUT" || body.Error.NextSince == "" {
		t.Fatalf("short wait = %+v, want WAIT_TIMEOUT with next_since", body)
	}
	return body.Error.NextSince
}

func TestInboxLifecycle(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "Sign Up!")
	if !strings.HasPrefix(in.InboxID, "sign-up-") || !strings.Contains(in.Address, "+"+in.InboxID+"@") {
		t.Fatalf("create_inbox = %+v", in)
	}
	other := e.create(t, "")
	e.deliver(t, in.Address, "Welcome", "Your verification code is 739204.")
	e.deliver(t, other.Address, "Other", "Not for the first inbox: 111222")
	e.deliver(t, "Someone <"+in.Address+">, x@example.test", "Confirm your email", "Confirm: https://shop.example/verify?token=abc123")

	var list inboxtools.ListMessagesResult
	e.call(t, "list_messages", map[string]any{"inbox_id": in.InboxID}, &list)
	if list.Total != 2 || len(list.Messages) != 2 || list.Messages[1].OTP == nil || *list.Messages[1].OTP != "739204" ||
		list.Messages[0].MagicLink == nil || !strings.Contains(*list.Messages[0].MagicLink, "token=abc123") {
		t.Fatalf("list_messages = %+v", list)
	}
	var withOTP inboxtools.ListMessagesResult
	e.call(t, "list_messages", map[string]any{"inbox_id": in.Address, "has_otp": true}, &withOTP)
	if len(withOTP.Messages) != 1 || withOTP.Messages[0].Subject != "Welcome" {
		t.Errorf("has_otp = %+v", withOTP.Messages)
	}
	var latest inboxtools.GetLatestResult
	e.call(t, "get_latest", map[string]any{"inbox_id": in.InboxID}, &latest)
	if latest.Message == nil || latest.Message.Subject != "Confirm your email" {
		t.Errorf("get_latest = %+v", latest)
	}

	empty := e.create(t, "empty")
	var inboxes inboxtools.ListInboxesResult
	e.call(t, "list_inboxes", map[string]any{}, &inboxes)
	counts, latestAt := map[string]int{}, map[string]string{}
	for _, ib := range inboxes.Inboxes {
		counts[ib.InboxID] = ib.Messages
		if ib.LatestAt != nil {
			latestAt[ib.InboxID] = *ib.LatestAt
		}
	}
	if len(inboxes.Inboxes) != 3 || counts[in.InboxID] != 2 || counts[other.InboxID] != 1 || counts[empty.InboxID] != 0 {
		t.Errorf("list_inboxes = %+v", inboxes.Inboxes)
	}
	if _, err := time.Parse(time.RFC3339, latestAt[in.InboxID]); err != nil || latestAt[empty.InboxID] != "" {
		t.Errorf("list_inboxes latest_at = %q, want a time for %s and none for %s", latestAt, in.InboxID, empty.InboxID)
	}
	var delEmpty inboxtools.DeleteInboxResult
	e.call(t, "delete_inbox", map[string]any{"inbox_id": empty.InboxID}, &delEmpty)

	var del inboxtools.DeleteInboxResult
	e.call(t, "delete_inbox", map[string]any{"inbox_id": in.InboxID}, &del)
	if del.Deleted != 2 {
		t.Errorf("delete_inbox = %+v, want 2 moved", del)
	}
	e.call(t, "list_inboxes", map[string]any{}, &inboxes)
	if len(inboxes.Inboxes) != 1 || inboxes.Inboxes[0].InboxID != other.InboxID {
		t.Errorf("after delete, list_inboxes = %+v", inboxes.Inboxes)
	}
	e.wantError(t, "list_messages", map[string]any{"inbox_id": in.InboxID}, mcpkit.CodeInboxNotFound)
	e.wantError(t, "list_messages", map[string]any{"inbox_id": "../x"}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "list_messages", map[string]any{"inbox_id": "someone@else.example"}, mcpkit.CodeInvalidArgument)
}

// TestWaitForEmailFilters: wait_for_email skips the messages its subject
// and sender filters refuse and returns the first one they accept, with its
// code and link.
func TestWaitForEmailFilters(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "filters")
	since := e.nextSince(t, in.InboxID)
	e.deliver(t, in.Address, "Newsletter", "Nothing to see: 111111")
	e.deliver(t, in.Address, "Welcome aboard", "Your code is 424242. Confirm: https://shop.example/verify?token=xyz")
	var got inboxtools.WaitEmailResult
	e.call(t, "wait_for_email", map[string]any{"inbox_id": in.InboxID, "since": since, "subject_contains": "welcome",
		"sender": "shop.example", "timeout": 5}, &got)
	if got.Subject != "Welcome aboard" || got.OTP == nil || *got.OTP != "424242" || got.MagicLink == nil ||
		!strings.Contains(*got.MagicLink, "token=xyz") || !strings.Contains(got.From, "no-reply@shop.example") {
		t.Errorf("wait_for_email = %+v, want the welcome message with its code and link", got)
	}
	res := callTool(t, e.client, "wait_for_email", map[string]any{"inbox_id": in.InboxID, "since": since, "sender": "nobody@", "timeout": 0.3})
	if !res.IsError || !strings.HasPrefix(res.Content[0].(mcp.TextContent).Text, "WAIT_TIMEOUT") {
		t.Errorf("wait_for_email with a sender nobody matches = %v, want WAIT_TIMEOUT", res.Content)
	}
}

// TestWaitSinceTimeBeyondAPage: a wait with a time as since finds a
// matching message even when more than a search page (1,000) of mail came
// after it: the cutoff is the lowest UID since that day, not the lowest of
// the newest 1,000.
func TestWaitSinceTimeBeyondAPage(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "deep")
	since := time.Now().Add(-2 * time.Second).UTC().Format(time.RFC3339)
	e.deliver(t, in.Address, "Your code", "Use 613370 to sign in.")
	for i := range imap.MaxPageSize + 5 {
		e.acct.Append(t, "INBOX", fmt.Appendf(nil, "From: a@example.test\r\nTo: other@example.test\r\nSubject: noise %d\r\n\r\nno code\r\n", i))
	}
	var got inboxtools.WaitOTPResult
	e.call(t, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 5}, &got)
	if got.OTP != "613370" {
		t.Errorf("wait_for_otp(since %s) = %+v, want 613370", since, got)
	}
}

// TestWaitSinceTimeWestOfUTC: a message that arrived after since, stamped
// by a server west of UTC, has an internal date on the day before since's
// UTC date (SEARCH SINCE compares dates in the message's own zone). The
// wait must still find it.
func TestWaitSinceTimeWestOfUTC(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "west")
	day := time.Now().UTC().Truncate(24 * time.Hour).Add(-24 * time.Hour)
	since := day.Add(time.Hour)                                             // 01:00Z
	arrived := day.Add(90 * time.Minute).In(time.FixedZone("PST", -8*3600)) // 17:30 the day before, -0800
	raw := fmt.Sprintf("From: Shop <no-reply@shop.example>\r\nTo: %s\r\nSubject: Your code\r\n\r\nUse 271828 to sign in.\r\n", in.Address)
	e.acct.AppendAt(t, "INBOX", []byte(raw), arrived)
	var got inboxtools.WaitOTPResult
	e.call(t, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": since.Format(time.RFC3339), "timeout": 2}, &got)
	if got.OTP != "271828" {
		t.Errorf("wait_for_otp(since %s) = %+v, want the code that arrived at %s", since.Format(time.RFC3339), got, arrived.Format(time.RFC3339))
	}
}

// TestWaitRetryLosesNothing is the race of issue 5: a message that lands
// between a timed-out wait and its retry (with next_since) is returned by
// the retry.
func TestWaitRetryLosesNothing(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "race")
	since := e.nextSince(t, in.InboxID)
	e.deliver(t, in.Address, "Your code", "Use 482913 to sign in.")
	var got inboxtools.WaitOTPResult
	e.call(t, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 10}, &got)
	if got.OTP != "482913" || got.Confidence < 0.5 || got.ID == "" {
		t.Errorf("retry = %+v, want 482913", got)
	}
	// A wait after that message, with its id as since, does not return it again.
	res := callTool(t, e.client, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": got.ID, "timeout": 0.3})
	if !res.IsError || !strings.HasPrefix(res.Content[0].(mcp.TextContent).Text, "WAIT_TIMEOUT") {
		t.Errorf("wait after the code = %v, want WAIT_TIMEOUT", res.Content)
	}
	e.wantError(t, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": "msg_1_999999"}, mcpkit.CodeInvalidArgument)
	e.wantError(t, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": "yesterday"}, mcpkit.CodeInvalidArgument)
}

// TestWaitPushedAndProgress: a wait blocks, gets the code pushed by IDLE
// when it arrives, and sends progress notifications meanwhile.
func TestWaitPushedAndProgress(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "push")
	since := e.nextSince(t, in.InboxID)
	var notes atomic.Int32
	var first atomic.Value // the first progress notification's fields
	e.client.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			if notes.Add(1) == 1 {
				first.Store(n.Params.AdditionalFields)
			}
		}
	})
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "wait_for_link"
		req.Params.Arguments = map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 20}
		req.Params.Meta = &mcp.Meta{ProgressToken: "p1"}
		res, err := e.client.CallTool(context.Background(), req)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	for i := 0; i < 100 && notes.Load() == 0; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if notes.Load() == 0 { // the wait must be blocked before the mail comes: pushed, not found at the start
		t.Fatal("no progress notification within 5 s: the wait is not blocked")
	}
	if f, _ := first.Load().(map[string]any); fmt.Sprint(f["progressToken"]) != "p1" || fmt.Sprint(f["total"]) != "20" ||
		!strings.HasPrefix(fmt.Sprint(f["message"]), "waiting for email… ") || !strings.HasSuffix(fmt.Sprint(f["message"]), "s of 20s") {
		t.Errorf("progress notification = %v, want token p1, total 20 and \"waiting for email… Ns of 20s\"", f)
	}
	e.deliver(t, in.Address, "Sign in to Shop", `Click to sign in: https://shop.example/magic?token=zz9 or unsubscribe at https://shop.example/unsubscribe`)
	select {
	case res := <-done:
		var got inboxtools.WaitLinkResult
		structured(t, res, &got)
		if got.Link != "https://shop.example/magic?token=zz9" {
			t.Errorf("wait_for_link = %+v", got)
		}
	case <-time.After(25 * time.Second):
		t.Fatal("wait_for_link did not return")
	}
	if notes.Load() == 0 {
		t.Error("no progress notification while waiting")
	}
}

func TestWaitCancelled(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "cancel")
	ctx, cancel := context.WithCancel(context.Background())
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "wait_for_email"
		req.Params.Arguments = map[string]any{"inbox_id": in.InboxID, "timeout": 25}
		res, err := e.client.CallTool(ctx, req)
		done <- answer{res, err}
	}()
	for i := 0; i < 200 && e.mail.WatchStats().Subscribers == 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if e.mail.WatchStats().Subscribers == 0 {
		cancel()
		t.Fatal("the wait never subscribed: nothing to cancel")
	}
	cancel()
	select {
	case a := <-done:
		// The in-process client returns the server's answer: CANCELLED.
		cancelled := errors.Is(a.err, context.Canceled) ||
			a.err == nil && a.res.IsError && strings.HasPrefix(a.res.Content[0].(mcp.TextContent).Text, "CANCELLED")
		if !cancelled {
			t.Errorf("cancelled wait_for_email = %+v, %v; want CANCELLED or context.Canceled", a.res, a.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled wait did not return")
	}
	for i := 0; i < 200 && e.mail.WatchStats().Subscribers != 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if n := e.mail.WatchStats().Subscribers; n != 0 {
		t.Errorf("%d subscriptions left after cancel", n)
	}
}

// TestManyWaiters: 500 concurrent waits on one account share one watching
// connection, and all return when their mail arrives.
func TestManyWaiters(t *testing.T) {
	e := newInboxEnv(t)
	const n = 500
	in := e.create(t, "many")
	since := e.nextSince(t, in.InboxID)
	var wg sync.WaitGroup
	var ok atomic.Int32
	for range n {
		wg.Go(func() {
			req := mcp.CallToolRequest{}
			req.Params.Name = "wait_for_otp"
			req.Params.Arguments = map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 30}
			res, err := e.client.CallTool(context.Background(), req)
			if err == nil && !res.IsError {
				ok.Add(1)
			}
		})
	}
	for i := 0; i < 500 && e.mail.WatchStats().Subscribers < n; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if st := e.mail.WatchStats(); st.Connections > 1 || st.Watchers != 1 {
		t.Errorf("with %d waiters: %+v, want 1 watcher on 1 connection", st.Subscribers, st)
	}
	e.deliver(t, in.Address, "Code", "Your one-time code is 246810.")
	wg.Wait()
	if ok.Load() != n {
		t.Errorf("%d of %d waits got the code", ok.Load(), n)
	}
}

func TestSendTestCode(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "sample")
	since := e.nextSince(t, in.InboxID)
	var sent inboxtools.SendTestCodeResult
	e.call(t, "send_test_code", map[string]any{"inbox_id": in.InboxID}, &sent)
	var got inboxtools.WaitOTPResult
	e.call(t, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 10}, &got)
	if len(got.OTP) != 6 || !strings.Contains(sent.MessageID, got.OTP) {
		t.Errorf("sample code %q, message %q", got.OTP, sent.MessageID)
	}
	for range 4 {
		e.call(t, "send_test_code", map[string]any{"inbox_id": in.InboxID}, &sent)
	}
	e.wantError(t, "send_test_code", map[string]any{"inbox_id": in.InboxID}, mcpkit.CodeRateLimited)
	// The limiter knows when its oldest sample leaves the hour: the answer says so.
	var body errorBody
	structured(t, callTool(t, e.client, "send_test_code", map[string]any{"inbox_id": in.InboxID}), &body)
	if r := body.Error.RetryAfterSeconds; r == nil || *r < 3500 || *r > 3600 || *r != float64(int(*r)) {
		t.Errorf("send_test_code over its limit: retry_after_seconds = %v, want whole seconds near 3600", r)
	}
}

// TestDeleteInboxPages: delete_inbox moves an inbox of more than one page
// (200) to Trash, a MOVE per page, and leaves other inboxes' mail alone.
func TestDeleteInboxPages(t *testing.T) {
	e := newInboxEnv(t)
	in, other := e.create(t, "big"), e.create(t, "kept")
	const n = 205
	for i := range n {
		e.deliver(t, in.Address, fmt.Sprintf("mail %d", i), "hello")
	}
	e.deliver(t, other.Address, "other", "hello")
	before, err := e.mail.Search(context.Background(), "Trash", imap.SearchCriteria{}, imap.PageRequest{Limit: 1, UIDsOnly: true})
	if err != nil && !errors.Is(err, imap.ErrFolderNotFound) {
		t.Fatal(err)
	}
	var del inboxtools.DeleteInboxResult
	e.call(t, "delete_inbox", map[string]any{"inbox_id": in.InboxID}, &del)
	if del.Deleted != n {
		t.Errorf("delete_inbox = %+v, want %d moved", del, n)
	}
	after, err := e.mail.Search(context.Background(), del.Trash, imap.SearchCriteria{}, imap.PageRequest{Limit: 1, UIDsOnly: true})
	was := 0
	if before != nil {
		was = before.Total
	}
	if err != nil || after.Total-was < n {
		t.Errorf("%s holds %v more messages (%v), want at least %d", del.Trash, after, err, n)
	}
	var list inboxtools.ListMessagesResult
	e.call(t, "list_messages", map[string]any{"inbox_id": other.InboxID}, &list)
	if list.Total != 1 {
		t.Errorf("the other inbox has %d messages after the delete, want 1", list.Total)
	}
}

// TestDeleteInboxNoTrash: without a trash folder delete_inbox says that the
// trash is missing (not the inbox's folder) and moves nothing. On an
// in-process account on every tier: the Dovecot tier shares its Trash.
func TestDeleteInboxNoTrash(t *testing.T) {
	e := newInboxEnvOn(t, mailtest.NewInProcessAccount(t), "")
	in := e.create(t, "no-trash")
	e.deliver(t, in.Address, "kept", "hello")
	if err := e.acct.Client(t).Delete("Trash").Wait(); err != nil {
		t.Fatal(err)
	}
	msg := e.wantError(t, "delete_inbox", map[string]any{"inbox_id": in.InboxID}, mcpkit.CodeFolderNotFound)
	if !strings.Contains(msg, `trash folder "Trash"`) {
		t.Errorf("delete_inbox error = %q, want it to name the missing trash folder", msg)
	}
	var list inboxtools.ListMessagesResult
	e.call(t, "list_messages", map[string]any{"inbox_id": in.InboxID}, &list)
	if list.Total != 1 {
		t.Errorf("after the failed delete the inbox has %d messages, want 1", list.Total)
	}
}

// TestInboxAddressMixedCase: INBOX_ADDRESS (or IMAP_USER) written with
// capitals, as "QA.Team@Example.test": the address create_inbox returns is
// accepted as inbox_id, and list_inboxes lists the inbox (it listed none).
func TestInboxAddressMixedCase(t *testing.T) {
	e := newInboxEnvAt(t, "QA.Team@Example.test")
	in := e.create(t, "signup")
	e.deliver(t, in.Address, "Your code", "Your verification code is 583920.")

	res := callTool(t, e.client, "list_messages", map[string]any{"inbox_id": in.Address})
	if res.IsError {
		t.Errorf("list_messages(inbox_id=%q, the address create_inbox returned) = %v", in.Address, res.Content)
	}
	var inboxes inboxtools.ListInboxesResult
	e.call(t, "list_inboxes", map[string]any{}, &inboxes)
	if len(inboxes.Inboxes) != 1 || inboxes.Inboxes[0].InboxID != in.InboxID {
		t.Errorf("list_inboxes = %+v, want the inbox %s just created", inboxes.Inboxes, in.InboxID)
	}
}

// TestWaitHugeTimeoutIsClamped: a timeout beyond time.Duration (1e10 s)
// overflowed to a negative one and the wait ended at once; it is clamped
// to WAIT_MAX_SECONDS like any other, and finds the code already there.
func TestWaitHugeTimeoutIsClamped(t *testing.T) {
	e := newInboxEnv(t)
	in := e.create(t, "clamp")
	since := e.nextSince(t, in.InboxID)
	e.deliver(t, in.Address, "Your code", "Your verification code is 583920.")
	res := callTool(t, e.client, "wait_for_otp", map[string]any{"inbox_id": in.InboxID, "since": since, "timeout": 1e10})
	var got inboxtools.WaitOTPResult
	if !res.IsError {
		structured(t, res, &got)
	}
	if res.IsError || got.OTP != "583920" {
		t.Errorf("wait_for_otp(timeout=1e10, a code already waiting) = %v, want the code 583920 (timeout clamped to WAIT_MAX_SECONDS)", res.Content)
	}
}
