package outbox

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/email-mcp/email-mcp/smtp"
)

// MaxRecipients bounds the recipients of one message on every path that
// submits mail (send_email, send_email_with_attachments, reply_email,
// forward_email, send_draft): To, Cc and Bcc together, counted in
// addresses once parsed, so that a comma-separated list or a group in one
// string counts each of its members. A reply counts its recipients after
// de-duplication.
const MaxRecipients = 100

// MaxReplyTo bounds the Reply-To addresses of a message, also once parsed.
const MaxReplyTo = 10

// recipientHint completes the count error of a reply, whose recipients
// the original chose.
var recipientHint = map[string]string{
	"the reply": "; they come from the original's Reply-To (else From) and, with reply_all, its To and Cc: " +
		"to answer some of them, use send_email with the recipients you choose",
}

// recipientCount is the number of addresses in m's To, Cc and Bcc.
func recipientCount(m *smtp.Message) int { return len(m.To) + len(m.Cc) + len(m.Bcc) }

// CheckRecipientCount refuses a message with more than MaxRecipients
// addresses, naming the count; what says whose they are ("the message",
// "the reply").
func CheckRecipientCount(m *smtp.Message, what string) error {
	n := recipientCount(m)
	if n <= MaxRecipients {
		return nil
	}
	return &Error{Kind: KindInvalid,
		Message: fmt.Sprintf("%s has %d recipients; at most %d in all (to, cc and bcc): nothing was sent", what, n, MaxRecipients) + recipientHint[what],
		Details: map[string]any{"recipients": n, "max_recipients": MaxRecipients}}
}

// policy is the guardrail of the sends for unattended agents: whom mail
// may go to (SEND_ALLOWED_RECIPIENTS) and how much this process may send
// per hour (SEND_MAX_PER_HOUR). It is checked before anything reaches the
// SMTP server.
type policy struct {
	exact   map[string]bool // full addresses, lower case
	domains map[string]bool // domains, lower case
	parents []string        // ".example.com" for "*.example.com"

	perHour int // 0: no cap
	sent    window
}

// newPolicy prepares the allow-list (entries as config checked them:
// a@b.example, b.example or *.b.example) and the hourly cap. Entries and
// recipients are compared by smtp.Key: any case, an IDN domain the same as
// its punycode.
func newPolicy(allowed []string, perHour int) *policy {
	p := &policy{exact: map[string]bool{}, domains: map[string]bool{}, perHour: perHour}
	for _, a := range allowed {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case strings.HasPrefix(a, "*."):
			p.parents = append(p.parents, "."+smtp.DomainKey(a[2:]))
		case strings.HasPrefix(a, "@"):
			p.domains[smtp.DomainKey(a[1:])] = true
		case strings.Contains(a, "@"):
			p.exact[smtp.Key(a)] = true
		case a != "":
			p.domains[smtp.DomainKey(a)] = true
		}
	}
	return p
}

// restricted reports whether an allow-list is set.
func (p *policy) restricted() bool {
	return len(p.exact)+len(p.domains)+len(p.parents) > 0
}

// allowed reports whether mail may go to addr.
func (p *policy) allowed(addr string) bool {
	if !p.restricted() {
		return true
	}
	a := smtp.Key(addr)
	if p.exact[a] {
		return true
	}
	at := strings.LastIndexByte(a, '@')
	if at < 0 {
		return false
	}
	domain := a[at+1:]
	if p.domains[domain] {
		return true
	}
	for _, parent := range p.parents {
		if strings.HasSuffix(domain, parent) {
			return true
		}
	}
	return false
}

// checkRecipients refuses the whole send when any recipient is not allowed,
// naming those recipients (the agent chose them, or they came from the
// message it answers: they are no secret), the first maxNamed in the text
// and all of them in refused.
func (p *policy) checkRecipients(rcpts []string) error {
	var refused []string
	for _, r := range rcpts {
		if !p.allowed(r) {
			refused = append(refused, r)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	named := strings.Join(refused[:min(len(refused), maxNamed)], ", ")
	if len(refused) > maxNamed {
		named += fmt.Sprintf(" and %d more", len(refused)-maxNamed)
	}
	return &Error{Kind: KindRecipientNotAllowed,
		Message: "not on the server's recipient allow-list (SEND_ALLOWED_RECIPIENTS): " + named + "; nothing was sent",
		Details: map[string]any{"refused": refused}}
}

// maxNamed is how many refused recipients an error's text names.
const maxNamed = 10

// reserve takes one send from the process's hourly budget. release gives
// it back when the send failed (nothing was delivered). Over the cap the
// error is RATE_LIMITED with retry_after_seconds.
func (p *policy) reserve(now time.Time) (release func(), err error) {
	if p.perHour <= 0 {
		return func() {}, nil
	}
	if wait := p.sent.take(now, p.perHour); wait > 0 {
		return nil, &Error{Kind: KindRateLimited,
			Message: "the send cap of this server is reached (SEND_MAX_PER_HOUR); nothing was sent",
			Details: map[string]any{"retry_after_seconds": int(math.Ceil(wait.Seconds())), "max_per_hour": p.perHour}}
	}
	return func() { p.sent.forget(now) }, nil
}

// window counts the sends of this process in a sliding hour: a fast
// refusal in front of the account's count in the mailbox (sendlog.go).
// The zero value is ready.
type window struct {
	mu     sync.Mutex
	events []time.Time // oldest first
}

// take records a send at now when fewer than limit happened in the hour
// before and returns 0; otherwise it records nothing and returns how long
// until there is room again.
func (w *window) take(now time.Time, limit int) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.events) > 0 && now.Sub(w.events[0]) >= time.Hour {
		w.events = w.events[1:]
	}
	if len(w.events) >= limit {
		return time.Hour - now.Sub(w.events[len(w.events)-limit])
	}
	w.events = append(w.events, now)
	return 0
}

// forget removes the send recorded at t (one that turned out not to count).
func (w *window) forget(t time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.events) - 1; i >= 0; i-- {
		if w.events[i].Equal(t) {
			w.events = append(w.events[:i], w.events[i+1:]...)
			return
		}
	}
}
