package smtp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strings"
	"time"

	gosmtp "github.com/emersion/go-smtp"
)

// tracer records the steps of a session for Diagnose; nil records nothing.
type tracer func(step string)

func (t tracer) step(format string, args ...any) {
	if t != nil {
		t(fmt.Sprintf(format, args...))
	}
}

// session is one connection, greeted and protected per the Security mode,
// ready for AUTH and a mail transaction.
type session struct {
	s     *Sender
	ctx   context.Context
	raw   *deadlineConn
	stop  func() bool
	c     *gosmtp.Client
	tls   *tls.ConnectionState // nil: plaintext
	mode  string               // "implicit TLS", "STARTTLS" or "plaintext"
	mech  string               // the AUTH mechanism that succeeded
	trace tracer
}

// open connects per the Security mode. The TLS handshake is complete and
// verified (or known to be absent) when it returns.
func (s *Sender) open(ctx context.Context, trace tracer) (*session, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if s.opts.Host == "" {
		return nil, invalid("host", "empty")
	}
	if strings.ContainsAny(s.opts.LocalName, "\r\n\x00 ") {
		return nil, invalid("local_name", "must be one word")
	}
	switch s.opts.Security {
	case SecurityTLS:
		return s.openImplicit(ctx, trace)
	case SecurityStartTLS:
		return s.openStartTLS(ctx, trace)
	case SecurityStartTLSOptional:
		return s.openOptional(ctx, trace)
	case SecurityPlain:
		return s.openPlain(ctx, trace)
	}
	return nil, invalid("security", "unknown mode %d", int(s.opts.Security))
}

// dial makes the TCP connection, bridged to ctx and bounded for the setup.
func (s *Sender) dial(ctx context.Context, trace tracer) (*session, error) {
	d := net.Dialer{Timeout: s.opts.DialTimeout}
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return nil, ioError(ctx, "connect", err)
	}
	trace.step("connected to %s", s.addr)
	raw, stop := newDeadlineConn(ctx, conn)
	raw.SetLimit(time.Now().Add(s.opts.CommandTimeout))
	return &session{s: s, ctx: ctx, raw: raw, stop: stop, trace: trace}, nil
}

// newClient configures a go-smtp client on conn.
func (s *Sender) newClient(conn net.Conn) *gosmtp.Client {
	c := gosmtp.NewClient(conn)
	s.timeouts(c)
	return c
}

func (s *Sender) timeouts(c *gosmtp.Client) {
	c.CommandTimeout = s.opts.CommandTimeout
	c.SubmissionTimeout = s.opts.SubmissionTimeout
}

func (s *Sender) openPlain(ctx context.Context, trace tracer) (*session, error) {
	ss, err := s.dial(ctx, trace)
	if err != nil {
		return nil, err
	}
	ss.c = s.newClient(ss.raw)
	return ss.ready("plaintext")
}

func (s *Sender) openImplicit(ctx context.Context, trace tracer) (*session, error) {
	ss, err := s.dial(ctx, trace)
	if err != nil {
		return nil, err
	}
	tc := tls.Client(ss.raw, s.tls)
	if err := tc.Handshake(); err != nil {
		ss.abort()
		return nil, ss.tlsFailure("tls handshake", err)
	}
	ss.c = s.newClient(tc)
	return ss.ready("implicit TLS")
}

func (s *Sender) openStartTLS(ctx context.Context, trace tracer) (*session, error) {
	ss, err := s.dial(ctx, trace)
	if err != nil {
		return nil, err
	}
	ss.raw.watchSTARTTLS(true)
	c, err := gosmtp.NewClientStartTLS(ss.raw, s.tls)
	ss.raw.watchSTARTTLS(false)
	if err != nil {
		ss.abort()
		return nil, ss.startTLSFailure(err)
	}
	s.timeouts(c)
	ss.c = c
	// The handshake runs with the next command: ready's EHLO reports its
	// failure (an untrusted certificate) as ErrTLS.
	return ss.ready("STARTTLS")
}

// openOptional probes for STARTTLS on a plaintext session and, when it is
// offered, reconnects with it (go-smtp has no StartTLS on a live Client). A
// failed handshake then is an error, not a reason to fall back.
func (s *Sender) openOptional(ctx context.Context, trace tracer) (*session, error) {
	ss, err := s.openPlain(ctx, trace)
	if err != nil {
		return nil, err
	}
	if ok, _ := ss.c.Extension("STARTTLS"); !ok {
		s.log.Warn("SMTP server offers no STARTTLS: sending in plaintext", "addr", s.addr)
		trace.step("no STARTTLS offered: staying in plaintext (weaker)")
		return ss, nil
	}
	trace.step("STARTTLS offered: reconnecting to use it")
	ss.quit()
	return s.openStartTLS(ctx, trace)
}

// ready says EHLO (which also completes a pending STARTTLS handshake), ends
// the setup bound and records the TLS state.
func (ss *session) ready(mode string) (*session, error) {
	if err := ss.c.Hello(ss.s.opts.LocalName); err != nil {
		st, isTLS := ss.c.TLSConnectionState()
		ss.close()
		if isTLS && !st.HandshakeComplete {
			return nil, ss.tlsFailure("tls handshake", err)
		}
		return nil, ss.fail("ehlo", err, ErrConnection)
	}
	ss.raw.SetLimit(time.Time{})
	ss.mode = mode
	if st, ok := ss.c.TLSConnectionState(); ok && st.HandshakeComplete {
		ss.tls = &st
		ss.trace.step("%s: %s established", mode, tls.VersionName(st.Version))
	}
	ss.trace.step("EHLO: ok")
	ss.s.log.Debug("smtp session ready", "addr", ss.s.addr, "mode", mode)
	return ss, nil
}

// fail translates err of op: a server answer wraps kind, anything else is
// an I/O failure (ErrConnection or a timeout).
func (ss *session) fail(op string, err error, kind error) error {
	if _, ok := asReply(err); ok {
		return kindError(op, kind, err)
	}
	return ioError(ss.ctx, op, err)
}

// tlsFailure translates a failed handshake: a timeout stays a timeout,
// anything else (certificate, protocol, the peer hanging up) is ErrTLS.
func (ss *session) tlsFailure(op string, err error) error {
	if isTimeout(err) || ctxErr(ss.ctx) != nil {
		return ioError(ss.ctx, op, err)
	}
	return kindError(op, ErrTLS, err)
}

// startTLSFailure translates an error of NewClientStartTLS (greeting, EHLO,
// STARTTLS): an answer to STARTTLS is ErrTLS, one before it ErrConnection;
// go-smtp's plain "doesn't support STARTTLS" error is ErrTLS.
func (ss *session) startTLSFailure(err error) error {
	if re, ok := asReply(err); ok {
		if ss.raw.startTLSSent() {
			return fmt.Errorf("starttls: %w: %w", ErrTLS, re)
		}
		return fmt.Errorf("greeting: %w: %w", ErrConnection, re)
	}
	if isTimeout(err) || ctxErr(ss.ctx) != nil || isNetErr(err) {
		return ioError(ss.ctx, "starttls", err)
	}
	return fmt.Errorf("starttls: %w: %w", ErrTLS, err) // "server doesn't support STARTTLS"
}

// isNetErr reports whether err is a broken or closed connection or an
// unreadable answer.
func isNetErr(err error) bool {
	var oe *net.OpError
	var pe textproto.ProtocolError
	return errors.As(err, &oe) || errors.As(err, &pe) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// quit ends the session politely and closes it.
func (ss *session) quit() {
	if err := ss.c.Quit(); err != nil {
		ss.s.log.Debug("smtp quit", "err", err)
	}
	ss.close()
}

// close closes the connection and releases the ctx bridge.
func (ss *session) close() {
	ss.stop()
	if ss.c != nil {
		_ = ss.c.Close()
		return
	}
	_ = ss.raw.Close()
}

// abort closes a session whose client was never made.
func (ss *session) abort() {
	ss.stop()
	_ = ss.raw.Close()
}

// remoteHost is the peer's IP as connected (for the loopback rule), or the
// configured host.
func (ss *session) remoteHost() string {
	if a, ok := ss.raw.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return ss.s.opts.Host
}
