package smtp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	gosmtp "github.com/emersion/go-smtp"
)

// The kinds of failure callers match on with errors.Is. Every error of this
// package wraps one of them, or a timeout (context.DeadlineExceeded and/or
// os.ErrDeadlineExceeded) or a cancellation (context.Canceled), and keeps the
// cause wrapped too. A timeout never matches ErrConnection, so a caller can
// test the sentinels in any order. Messages never contain the password; they
// may name the host and quote the server.
var (
	// ErrAuthFailed: the server refused the credentials (535 and other 5xx
	// answers to AUTH), offers no mechanism we speak (PLAIN, LOGIN), or asks
	// for authentication when no credentials are configured.
	ErrAuthFailed = errors.New("smtp: authentication failed")
	// ErrRejected: the server refused the message or every recipient. The
	// error is a *RejectedError with the per-recipient results.
	ErrRejected = errors.New("smtp: message rejected")
	// ErrTLS: the TLS handshake failed (untrusted or mismatched certificate,
	// not TLS at all), a required STARTTLS is not offered, or the server
	// wants TLS before AUTH.
	ErrTLS = errors.New("smtp: TLS failed")
	// ErrConnection: the server could not be reached (refused, unreachable,
	// DNS), refused the session, or the connection broke.
	ErrConnection = errors.New("smtp: connection failed")
	// ErrTooLarge: the message is larger than the server accepts (its SIZE
	// extension, or a 552 answer).
	ErrTooLarge = errors.New("smtp: message too large")
	// ErrMaybeDelivered: the whole message went out and the connection
	// failed (or timed out) before the server answered it: the server may
	// have accepted it. It comes with ErrConnection or the timeout. Every
	// other failed Send delivered nothing: a message is only accepted by the
	// server's answer to its end, and any answer but 250 refuses it.
	ErrMaybeDelivered = errors.New("smtp: the message may have been delivered")
	// ErrInvalidArgument: a message, address or envelope cannot be sent as
	// given (control characters in a header field, no recipient, a malformed
	// address, ...). Nothing was sent.
	ErrInvalidArgument = errors.New("smtp: invalid argument")
	// ErrInsecureAuth: credentials would travel over a plaintext connection to
	// a host that is not loopback and Options.AllowPlainAuth is false. It
	// matches ErrTLS too.
	ErrInsecureAuth = fmt.Errorf("%w: refusing to send credentials over a plaintext connection to a non-loopback host", ErrTLS)
)

// maxReason is how much of a server's text a Rejection or ReplyError keeps.
const maxReason = 200

// ReplyError is a server answer that ended an exchange (the package's own
// copy of go-smtp's SMTPError, whose type does not leave the package).
type ReplyError struct {
	Code     int    // basic reply code, e.g. 535
	Enhanced string // enhanced status code, e.g. "5.7.8", or ""
	Message  string // the server's text, sanitized (no CR/LF, at most ~200 bytes)
}

// Error implements error.
func (e *ReplyError) Error() string {
	s := fmt.Sprintf("server replied %d", e.Code)
	if e.Enhanced != "" {
		s += " " + e.Enhanced
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Temporary reports whether the answer was a 4xx (try again later).
func (e *ReplyError) Temporary() bool { return e.Code/100 == 4 }

// asReply converts an answer of the server in err's chain to a *ReplyError.
func asReply(err error) (*ReplyError, bool) {
	var se *gosmtp.SMTPError
	if !errors.As(err, &se) {
		return nil, false
	}
	re := &ReplyError{Code: se.Code, Message: sanitize(se.Message)}
	if se.EnhancedCode != gosmtp.NoEnhancedCode && se.EnhancedCode != gosmtp.EnhancedCodeNotSet {
		c := se.EnhancedCode
		re.Enhanced = fmt.Sprintf("%d.%d.%d", c[0], c[1], c[2])
	}
	return re, true
}

// sanitize makes server text safe to show: control characters (CR, LF, ...)
// become spaces, runs of spaces collapse, and the text is cut to maxReason
// bytes on a rune boundary.
func sanitize(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxReason {
		return s
	}
	cut := maxReason
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Rejection is one recipient the server refused.
type Rejection struct {
	Address string // the envelope address as given
	Code    int    // SMTP reply code (550, 450, ...); 0 when refused before asking the server
	Reason  string // the server's text, sanitized and short
}

// RejectedError is returned by Send when nothing was delivered: every
// recipient was refused at RCPT, or the server refused the sender (MAIL) or
// the message (DATA). errors.Is(err, ErrRejected) holds; errors.As gives the
// per-recipient results. A partial rejection is not an error: see Send.
type RejectedError struct {
	Result Result // Accepted is empty; Rejected lists every recipient
	Stage  string // "MAIL", "RCPT" or "DATA"
	Code   int    // the reply code that decided (the first one at RCPT)
	Reason string // sanitized server text of that reply
}

// Error implements error. It quotes no server text (see Reason).
func (e *RejectedError) Error() string {
	return fmt.Sprintf("smtp: message rejected at %s (%d, %d recipient(s) refused)", e.Stage, e.Code, len(e.Result.Rejected))
}

// Is makes errors.Is(err, ErrRejected) true.
func (e *RejectedError) Is(target error) bool { return target == ErrRejected }

// Temporary reports whether the deciding reply was a 4xx: a retry later may
// succeed.
func (e *RejectedError) Temporary() bool { return e.Code/100 == 4 }

// LogValue implements slog.LogValuer: the log keeps the server's reason.
func (e *RejectedError) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("stage", e.Stage),
		slog.Int("code", e.Code),
		slog.String("reason", e.Reason),
		slog.Int("rejected", len(e.Result.Rejected)),
	)
}

// rejectAll builds the RejectedError of a message-level refusal: every
// recipient, accepted at RCPT or not, ends up rejected.
func rejectAll(stage string, code int, reason string, res Result) *RejectedError {
	rejected := append([]Rejection(nil), res.Rejected...)
	for _, a := range res.Accepted {
		rejected = append(rejected, Rejection{Address: a, Code: code, Reason: reason})
	}
	return &RejectedError{Result: Result{Rejected: rejected}, Stage: stage, Code: code, Reason: reason}
}

// ctxErr is ctx's error, or context.DeadlineExceeded once ctx's deadline has
// passed even if its timer has not fired yet (the connection deadline, which
// is the same instant, may fire first).
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}

// isTimeout reports whether err is a deadline or timeout.
func isTimeout(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// ioError wraps a failed read, write or dial under op: a timeout or a done
// context keeps its error in the chain (and never matches ErrConnection);
// anything else is ErrConnection.
func ioError(ctx context.Context, op string, err error) error {
	switch cerr := ctxErr(ctx); {
	case errors.Is(cerr, context.Canceled):
		return fmt.Errorf("%s: %w (%v)", op, cerr, err)
	case cerr != nil:
		return fmt.Errorf("%s: %w: %w", op, cerr, err)
	case isTimeout(err):
		return fmt.Errorf("%s: %w", op, err)
	}
	return fmt.Errorf("%s: %w: %w", op, ErrConnection, err)
}

// kindError wraps a server answer (converted to *ReplyError) or another
// cause under op with the given kind.
func kindError(op string, kind, err error) error {
	if re, ok := asReply(err); ok {
		return fmt.Errorf("%s: %w: %w", op, kind, re)
	}
	return fmt.Errorf("%s: %w: %w", op, kind, err)
}

// invalid is an ErrInvalidArgument naming the field.
func invalid(field, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalidArgument, field, fmt.Sprintf(format, args...))
}
