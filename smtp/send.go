package smtp

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	gosmtp "github.com/emersion/go-smtp"
)

// Envelope is the SMTP envelope: bare addresses ("a@example.com"). To holds
// every recipient, Bcc included; it is what RCPT TO is sent for, whatever
// the message's headers say. (*Message).Envelope builds one.
type Envelope struct {
	From string
	To   []string
}

// Result is what the server did with each recipient of a sent message.
type Result struct {
	Accepted []string
	Rejected []Rejection
}

// sizer is a message that knows its size before it is written
// (*Message does).
type sizer interface {
	Size() (int64, error)
}

// validator is a message that can check itself before any I/O
// (*Message does).
type validator interface {
	Validate() error
}

// utf8Header is a message that knows whether its header holds an address
// only SMTPUTF8 may carry (a non-ASCII Reply-To is in no envelope).
type utf8Header interface {
	headerNeedsUTF8() bool
}

// Send submits msg to env's recipients on a fresh connection: TLS per the
// Security mode (verified before AUTH), AUTH when credentials are set, then
// MAIL, one RCPT per recipient, DATA.
//
// Recipients are asked one by one and a refused one (550, 450, ...) does
// not stop the others:
//   - some accepted: the message goes to those, and Send returns a Result
//     with Rejected filled and a nil error — a partial delivery is not an
//     error, so callers must look at Result.Rejected;
//   - all refused: no DATA; the error is a *RejectedError
//     (errors.Is(err, ErrRejected)) carrying the per-recipient results.
//
// A refusal of the sender or of the message (5xx at MAIL or DATA) is a
// *RejectedError too; 552 or a size above the server's SIZE limit (checked
// before MAIL when msg has a Size method, as *Message has) is ErrTooLarge.
// A broken connection is ErrConnection; a timeout keeps
// context.DeadlineExceeded / os.ErrDeadlineExceeded in the chain. On error
// the returned Result is zero. If writing msg fails midway, the connection is
// dropped without the final dot, so the server discards the partial message.
func (s *Sender) Send(ctx context.Context, env Envelope, msg io.WriterTo) (Result, error) {
	env, err := env.normalize()
	if err != nil {
		return Result{}, fmt.Errorf("send: %w", err)
	}
	if msg == nil {
		return Result{}, fmt.Errorf("send: %w", invalid("message", "missing"))
	}
	if v, ok := msg.(validator); ok {
		if err := v.Validate(); err != nil {
			return Result{}, fmt.Errorf("send: %w", err)
		}
	}
	ss, err := s.open(ctx, nil)
	if err != nil {
		return Result{}, fmt.Errorf("send: %w", err)
	}
	defer ss.close()
	if err := ss.authenticate(); err != nil {
		return Result{}, fmt.Errorf("send: %w", err)
	}
	res, err := ss.transact(env, msg)
	if err != nil {
		return Result{}, fmt.Errorf("send: %w", err)
	}
	ss.quit()
	s.log.Debug("smtp message sent", "accepted", len(res.Accepted), "rejected", len(res.Rejected))
	return res, nil
}

// normalize checks the envelope and drops repeated recipients (compared
// case-insensitively), keeping the first spelling.
func (e Envelope) normalize() (Envelope, error) {
	if err := checkEmail("envelope.from", e.From); err != nil {
		return e, err
	}
	if len(e.To) == 0 {
		return e, invalid("envelope.to", "no recipient")
	}
	seen := make(map[string]bool, len(e.To))
	to := make([]string, 0, len(e.To))
	for i, a := range e.To {
		if err := checkEmail(fmt.Sprintf("envelope.to[%d]", i), a); err != nil {
			return e, err
		}
		if k := strings.ToLower(a); !seen[k] {
			seen[k] = true
			to = append(to, a)
		}
	}
	return Envelope{From: e.From, To: to}, nil
}

// transact runs MAIL, RCPT and DATA.
func (ss *session) transact(env Envelope, msg io.WriterTo) (Result, error) {
	opts, err := ss.mailOptions(env, msg)
	if err != nil {
		return Result{}, err
	}
	if err := ss.c.Mail(env.From, opts); err != nil {
		return Result{}, ss.mailFailure(env, err)
	}
	res, err := ss.recipients(env.To)
	if err != nil {
		return Result{}, err
	}
	if len(res.Accepted) == 0 {
		first := res.Rejected[0]
		return Result{}, &RejectedError{Result: res, Stage: "RCPT", Code: first.Code, Reason: first.Reason}
	}
	if err := ss.data(msg, res); err != nil {
		return Result{}, err
	}
	return res, nil
}

// mailOptions checks SMTPUTF8 and the server's SIZE limit.
func (ss *session) mailOptions(env Envelope, msg io.WriterTo) (*gosmtp.MailOptions, error) {
	opts := &gosmtp.MailOptions{}
	h, ok := msg.(utf8Header)
	if !isASCII(env.From) || !allASCII(env.To) || ok && h.headerNeedsUTF8() {
		if ok, _ := ss.c.Extension("SMTPUTF8"); !ok {
			reason := "the server does not accept internationalized addresses (no SMTPUTF8)"
			return nil, rejectAll("MAIL", 0, reason, Result{Accepted: env.To})
		}
		opts.UTF8 = true
	}
	limit, ok := ss.c.MaxMessageSize()
	sz, known := msg.(sizer)
	if !ok || limit <= 0 || !known {
		return opts, nil
	}
	n, err := sz.Size()
	if err != nil {
		return nil, fmt.Errorf("size: %w", err)
	}
	if n > int64(limit) {
		return nil, fmt.Errorf("mail: %w: the message is %d bytes, the server accepts at most %d", ErrTooLarge, n, limit)
	}
	opts.Size = n
	return opts, nil
}

// mailFailure translates a refused MAIL FROM.
func (ss *session) mailFailure(env Envelope, err error) error {
	re, ok := asReply(err)
	switch {
	case !ok:
		return ioError(ss.ctx, "mail", err)
	case tooLarge(re):
		return fmt.Errorf("mail: %w: %w", ErrTooLarge, re)
	case re.Code == 421:
		return fmt.Errorf("mail: %w: %w", ErrConnection, re)
	case ss.s.opts.Username == "" && (re.Code == 530 || re.Enhanced == "5.7.0"):
		return fmt.Errorf("mail: %w: the server requires authentication and no user is configured: %w", ErrAuthFailed, re)
	}
	return rejectAll("MAIL", re.Code, re.Message, Result{Accepted: env.To})
}

// recipients sends one RCPT per address and collects the answers; only a
// broken connection (or 421, closing) stops the loop.
func (ss *session) recipients(to []string) (Result, error) {
	var res Result
	for _, a := range to {
		err := ss.c.Rcpt(a, nil)
		if err == nil {
			res.Accepted = append(res.Accepted, a)
			continue
		}
		re, ok := asReply(err)
		if !ok || re.Code == 421 {
			return Result{}, ss.fail("rcpt", err, ErrConnection)
		}
		res.Rejected = append(res.Rejected, Rejection{Address: a, Code: re.Code, Reason: re.Message})
	}
	return res, nil
}

// data sends the message. While it is written, a stall (no progress for
// CommandTimeout) fails; the final dot and the answer get SubmissionTimeout.
// A failure while writing drops the connection without the final dot.
func (ss *session) data(msg io.WriterTo, res Result) error {
	w, err := ss.c.Data()
	if err != nil {
		return ss.dataFailure(err, res)
	}
	pw := &progressWriter{w: w, raw: ss.raw, idle: ss.s.opts.CommandTimeout}
	if _, err := msg.WriteTo(pw); err != nil {
		_ = ss.c.Close()
		if pw.err != nil {
			return ioError(ss.ctx, "data", pw.err)
		}
		return fmt.Errorf("data: compose: %w", err)
	}
	ss.raw.SetLimit(time.Now().Add(ss.s.opts.SubmissionTimeout))
	if err := w.Close(); err != nil {
		if _, answered := asReply(err); !answered {
			return fmt.Errorf("%w: %w", ErrMaybeDelivered, ioError(ss.ctx, "data", err))
		}
		return ss.dataFailure(err, res)
	}
	ss.raw.SetLimit(time.Time{})
	return nil
}

// dataFailure translates a refused DATA or a refused message after the dot.
func (ss *session) dataFailure(err error, res Result) error {
	re, ok := asReply(err)
	switch {
	case !ok:
		return ioError(ss.ctx, "data", err)
	case tooLarge(re):
		return fmt.Errorf("data: %w: %w", ErrTooLarge, re)
	case re.Code == 421:
		return fmt.Errorf("data: %w: %w", ErrConnection, re)
	}
	return rejectAll("DATA", re.Code, re.Message, res)
}

// tooLarge reports a "message too big" answer (552, 5.3.4).
func tooLarge(re *ReplyError) bool {
	return re.Code == 552 || re.Enhanced == "5.3.4"
}

// progressWriter writes the message into DATA. It keeps the connection's
// limit idle ahead of now (moved at most once a second), so only a stall
// fails, and remembers the first write error, to tell a broken connection
// from a message that failed to compose.
type progressWriter struct {
	w    io.Writer
	raw  *deadlineConn
	idle time.Duration
	next time.Time // when to move the limit again
	err  error
}

func (p *progressWriter) Write(b []byte) (int, error) {
	if now := time.Now(); !now.Before(p.next) {
		p.raw.SetLimit(now.Add(p.idle))
		p.next = now.Add(time.Second)
	}
	n, err := p.w.Write(b)
	if err != nil && p.err == nil {
		p.err = err
	}
	return n, err
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func allASCII(ss []string) bool {
	for _, s := range ss {
		if !isASCII(s) {
			return false
		}
	}
	return true
}
