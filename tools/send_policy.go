package tools

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/email-mcp/email-mcp/smtp"
)

// sendLimitsNote tells the model about the guardrails in each send tool's
// description.
const sendLimitsNote = " At most 100 recipients (to, cc and bcc together, counted in addresses). The server may restrict recipients (RECIPIENT_NOT_ALLOWED: nothing is sent) and cap sends per hour (RATE_LIMITED with retry_after_seconds)."

// maxRecipients bounds the recipients of one message on every path that
// submits mail (send_email, send_email_with_attachments, reply_email): To,
// Cc and Bcc together, counted in addresses once parsed, so that a
// comma-separated list or a group in one string counts each of its
// members. A reply counts its recipients after de-duplication.
const maxRecipients = 100

// recipientHint completes the count error of a reply, whose recipients
// the original chose.
var recipientHint = map[string]string{
	"the reply": "; they come from the original's Reply-To (else From) and, with reply_all, its To and Cc: " +
		"to answer some of them, use send_email with the recipients you choose",
}

// maxReplyTo bounds the Reply-To addresses of send_email, also once parsed.
const maxReplyTo = 10

// recipientCount is the number of addresses in m's To, Cc and Bcc.
func recipientCount(m *smtp.Message) int { return len(m.To) + len(m.Cc) + len(m.Bcc) }

// checkRecipientCount refuses a message with more than maxRecipients
// addresses, naming the count; what says whose they are ("the message",
// "the reply").
func checkRecipientCount(m *smtp.Message, what string) error {
	n := recipientCount(m)
	if n <= maxRecipients {
		return nil
	}
	return &Error{Code: CodeInvalidArgument,
		Message: fmt.Sprintf("%s has %d recipients; at most %d in all (to, cc and bcc): nothing was sent", what, n, maxRecipients) + recipientHint[what],
		Details: map[string]any{"recipients": n, "max_recipients": maxRecipients}}
}

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
// a@b.example, b.example or *.b.example) and the hourly cap. Entries and
// recipients are compared by smtp.Key: any case, an IDN domain the same as
// its punycode.
func newSendPolicy(allowed []string, perHour int) *sendPolicy {
	p := &sendPolicy{exact: map[string]bool{}, domains: map[string]bool{}, perHour: perHour}
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
func (p *sendPolicy) restricted() bool {
	return len(p.exact)+len(p.domains)+len(p.parents) > 0
}

// allowed reports whether mail may go to addr.
func (p *sendPolicy) allowed(addr string) bool {
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
	named := strings.Join(refused[:min(len(refused), maxNamed)], ", ")
	if len(refused) > maxNamed {
		named += fmt.Sprintf(" and %d more", len(refused)-maxNamed)
	}
	return &Error{Code: CodeRecipientNotAllowed,
		Message: "not on the server's recipient allow-list (SEND_ALLOWED_RECIPIENTS): " + named + "; nothing was sent",
		Details: map[string]any{"refused": refused}}
}

// maxNamed is how many refused recipients an error's text names.
const maxNamed = 10

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
