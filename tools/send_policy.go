package tools

import (
	"math"
	"strings"
	"time"
)

// sendLimitsNote tells the model about the guardrails in each send tool's
// description.
const sendLimitsNote = " The server may restrict recipients (RECIPIENT_NOT_ALLOWED: nothing is sent) and cap sends per hour (RATE_LIMITED with retry_after_seconds)."

// sendPolicy is the guardrail of the send tools for unattended agents: whom
// mail may go to (SEND_ALLOWED_RECIPIENTS) and how much may go out per hour
// (SEND_MAX_PER_HOUR). It is checked before anything reaches the SMTP server.
type sendPolicy struct {
	exact   map[string]bool // full addresses, lower case
	domains map[string]bool // domains, lower case
	parents []string        // ".example.com" for "*.example.com"

	perHour int // 0: no cap
	sent    hourlyLimit
}

// newSendPolicy prepares the allow-list (entries as config checked them:
// a@b.example, b.example or *.b.example) and the hourly cap.
func newSendPolicy(allowed []string, perHour int) *sendPolicy {
	p := &sendPolicy{exact: map[string]bool{}, domains: map[string]bool{}, perHour: perHour}
	for _, a := range allowed {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case strings.HasPrefix(a, "*."):
			p.parents = append(p.parents, a[1:])
		case strings.HasPrefix(a, "@"):
			p.domains[a[1:]] = true
		case strings.Contains(a, "@"):
			p.exact[a] = true
		case a != "":
			p.domains[a] = true
		}
	}
	return p
}

// restricted reports whether an allow-list is set.
func (p *sendPolicy) restricted() bool {
	return len(p.exact)+len(p.domains)+len(p.parents) > 0
}

// allowed reports whether mail may go to addr.
func (p *sendPolicy) allowed(addr string) bool {
	if !p.restricted() {
		return true
	}
	a := strings.ToLower(addr)
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
// naming those recipients (the agent chose them; they are no secret).
func (p *sendPolicy) checkRecipients(rcpts []string) error {
	var refused []string
	for _, r := range rcpts {
		if !p.allowed(r) {
			refused = append(refused, r)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return &Error{Code: CodeRecipientNotAllowed,
		Message: "not on the server's recipient allow-list (SEND_ALLOWED_RECIPIENTS): " + strings.Join(refused, ", ") + "; nothing was sent",
		Details: map[string]any{"refused": refused}}
}

// reserve takes one send from the hourly budget. release gives it back when
// the send failed (nothing was delivered). Over the cap the error is
// RATE_LIMITED with retry_after_seconds.
func (p *sendPolicy) reserve(now time.Time) (release func(), err error) {
	if p.perHour <= 0 {
		return func() {}, nil
	}
	if wait := p.sent.take(now, map[string]int{sendKey: p.perHour}); wait > 0 {
		return nil, &Error{Code: CodeRateLimited,
			Message: "the send cap of this server is reached (SEND_MAX_PER_HOUR); nothing was sent",
			Details: map[string]any{"retry_after_seconds": int(math.Ceil(wait.Seconds())), "max_per_hour": p.perHour}}
	}
	return func() { p.sent.forget(sendKey, now) }, nil
}

// sendKey is the one key of the send cap: it counts for the whole process.
const sendKey = "send"
