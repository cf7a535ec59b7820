package imap

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"github.com/email-mcp/email-mcp/internal/clampconn"
	"github.com/email-mcp/email-mcp/internal/redact"
)

// connect opens a logged-in connection in the configured Security mode. d,
// when not nil, records each step for Diagnose.
func (c *Client) connect(ctx context.Context, d *Diagnosis) (*conn, error) {
	var (
		cn  *conn
		err error
	)
	switch c.opts.Security {
	case SecurityTLS:
		cn, err = c.openTLS(ctx, d)
	case SecurityStartTLS:
		cn, err = c.openStartTLS(ctx, d)
	case SecurityStartTLSOptional:
		cn, err = c.openOptional(ctx, d)
	case SecurityPlain:
		cn, err = c.probe(ctx, d)
	default:
		err = fmt.Errorf("connect: %w: unknown security mode %v", ErrTLS, c.opts.Security)
	}
	if err != nil {
		return nil, err
	}
	if err := c.login(ctx, cn, d); err != nil {
		cn.close()
		return nil, err
	}
	return cn, nil
}

// dialTCP opens the TCP connection within DialTimeout.
func (c *Client) dialTCP(ctx context.Context, d *Diagnosis) (net.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, c.opts.DialTimeout)
	defer cancel()
	start := time.Now()
	var dialer net.Dialer
	nc, err := dialer.DialContext(dctx, "tcp", c.addr)
	if err != nil {
		err = phaseError("connect to "+c.addr, dctx, err, ErrConnection)
		d.stepf("failed: %v", err)
		return nil, err
	}
	d.stepf("connect to %s: ok (%v)", c.addr, time.Since(start).Round(time.Millisecond))
	return nc, nil
}

// phaseError wraps the failure of a connection phase: a timeout or a
// cancellation keeps the context error, anything else gets kind.
func phaseError(op string, ctx context.Context, err, kind error) error {
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", op, cutOff(ctx.Err(), err))
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%s: %w", op, cutOff(context.DeadlineExceeded, err))
	default:
		return wrapKind(op, kind, err)
	}
}

// openTLS dials and completes the implicit TLS handshake within
// DialTimeout, then reads the greeting.
func (c *Client) openTLS(ctx context.Context, d *Diagnosis) (*conn, error) {
	nc, err := c.dialTCP(ctx, d)
	if err != nil {
		return nil, err
	}
	cfg := c.tlsConfig(d)
	if cfg.NextProtos == nil {
		cfg.NextProtos = []string{"imap"} // as imapclient.DialTLS does
	}
	tc := tls.Client(nc, cfg)
	hctx, cancel := context.WithTimeout(ctx, c.opts.DialTimeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		nc.Close()
		kind := handshakeKind(err)
		err = phaseError("TLS handshake with "+c.addr, hctx, err, kind)
		d.stepf("failed: %v", err)
		return nil, err
	}
	cn := newConn(tc, true)
	if err := c.greeting(ctx, cn, d); err != nil {
		cn.close()
		return nil, err
	}
	return cn, nil
}

// probe dials in plaintext and reads the greeting and capabilities.
func (c *Client) probe(ctx context.Context, d *Diagnosis) (*conn, error) {
	nc, err := c.dialTCP(ctx, d)
	if err != nil {
		return nil, err
	}
	cn := newConn(nc, false)
	if err := c.greeting(ctx, cn, d); err != nil {
		cn.close()
		return nil, err
	}
	if d != nil {
		d.STARTTLSOffered = cn.caps.Has(goimap.CapStartTLS)
	}
	return cn, nil
}

// greeting waits for the server's greeting and its capabilities.
func (c *Client) greeting(ctx context.Context, cn *conn, d *Diagnosis) error {
	err := cn.run(ctx, c.opts.CommandTimeout, func(ic *imapclient.Client) error {
		if err := ic.WaitGreeting(); err != nil {
			return err
		}
		return loadCaps(cn)
	})
	if err != nil {
		err = connError("greeting from "+c.addr, err, ErrConnection)
		d.stepf("failed: %v", err)
		return err
	}
	d.stepf("greeting: ok; capabilities: %s", strings.Join(capList(cn.caps), " "))
	return nil
}

// loadCaps stores the capabilities, asking for them when the last answer
// did not carry them. imapclient's Caps returns nil when that fails.
func loadCaps(cn *conn) error {
	caps := cn.ic.Caps()
	if caps == nil {
		return errors.New("no capabilities: connection closed")
	}
	cn.caps = caps
	return nil
}

// connError wraps a failed exchange during connect: a cut-off one keeps its
// timeout, one that already has a kind keeps it, any other gets kind.
func connError(op string, err, kind error) error {
	if hasKind(err) {
		return fmt.Errorf("%s: %w", op, err)
	}
	return wrapKind(op, kind, err)
}

// openStartTLS dials and sends STARTTLS first: nothing else, and no
// credentials, goes over the connection before TLS is up. A server that
// refuses STARTTLS fails with ErrTLS.
func (c *Client) openStartTLS(ctx context.Context, d *Diagnosis) (*conn, error) {
	nc, err := c.dialTCP(ctx, d)
	if err != nil {
		return nil, err
	}
	cn := newConnState(clampconn.New(nc), true)
	opts := cn.options()
	opts.TLSConfig = c.tlsConfig(d)
	spoiled, err := bridge(ctx, cn.dc, c.opts.CommandTimeout, func() error {
		var err error
		cn.ic, err = imapclient.NewStartTLS(cn.dc, opts) // closes dc on failure
		return err
	})
	if err != nil {
		nc.Close()
		if !spoiled {
			err = wrapKind("STARTTLS with "+c.addr, startTLSKind(err), err)
		} else {
			err = fmt.Errorf("STARTTLS with %s: %w", c.addr, err)
		}
		d.stepf("failed: %v", err)
		return nil, err
	}
	d.stepf("STARTTLS: ok")
	cn.spoiled = spoiled
	if err := cn.run(ctx, c.opts.CommandTimeout, func(*imapclient.Client) error { return loadCaps(cn) }); err != nil {
		cn.close()
		err = connError("capabilities after STARTTLS", err, ErrConnection)
		d.stepf("failed: %v", err)
		return nil, err
	}
	d.stepf("capabilities over TLS: %s", strings.Join(capList(cn.caps), " "))
	return cn, nil
}

// startTLSKind classifies a failed NewStartTLS: PREAUTH on a plaintext
// connection is a TLS failure too (imapclient refuses it).
func startTLSKind(err error) error {
	if strings.Contains(err.Error(), "PREAUTH") {
		return ErrTLS
	}
	return handshakeKind(err)
}

// openOptional uses STARTTLS when the server offers it, plaintext
// otherwise. Once a server was seen offering STARTTLS, this Client requires
// it (an attacker cannot downgrade later connections by hiding it).
func (c *Client) openOptional(ctx context.Context, d *Diagnosis) (*conn, error) {
	if d == nil && c.startTLSSeen.Load() {
		return c.openStartTLS(ctx, d)
	}
	cn, err := c.probe(ctx, d)
	if err != nil {
		return nil, err
	}
	if !cn.caps.Has(goimap.CapStartTLS) {
		d.stepf("STARTTLS: not offered; continuing in plaintext (IMAP_STARTTLS=none)")
		c.opts.Logger.Warn("imap: server does not offer STARTTLS; using plaintext", "addr", c.addr)
		return cn, nil
	}
	c.startTLSSeen.Store(true)
	d.stepf("STARTTLS: offered; reconnecting to use it")
	cn.logout()
	return c.openStartTLS(ctx, d)
}

// login authenticates with LOGIN, which never goes in clear text unless the
// mode allows it, and loads the capabilities of the authenticated state.
func (c *Client) login(ctx context.Context, cn *conn, d *Diagnosis) error {
	if d != nil {
		d.CapsBeforeLogin = capList(cn.caps)
		d.AuthMechanisms = cn.caps.AuthMechanisms()
	}
	if cn.ic.State() == goimap.ConnStateAuthenticated { // PREAUTH
		d.stepf("login: skipped, the server pre-authenticated the connection")
		return nil
	}
	if c.opts.Token != nil {
		return c.loginToken(ctx, cn, d)
	}
	if err := c.loginAllowed(cn); err != nil {
		d.stepf("login: not attempted: %v", err)
		return err
	}
	err := cn.run(ctx, c.opts.CommandTimeout, func(ic *imapclient.Client) error {
		if err := ic.Login(c.opts.Username, c.opts.Password).Wait(); err != nil {
			return err
		}
		return loadCaps(cn)
	})
	if err != nil {
		if !hasKind(err) {
			err = wrapKind("login", loginKind(err), err)
		} else {
			err = fmt.Errorf("login: %w", err)
		}
		// A server may echo the refused LOGIN, password included.
		err = redact.Error(err, redact.Password(c.opts.Username, c.opts.Password)...)
		d.stepf("login as %q: failed: %v", c.opts.Username, err)
		return err
	}
	if d != nil {
		d.LoginOK = true
		d.CapsAfterLogin = capList(cn.caps)
	}
	d.stepf("login as %q: ok; capabilities: %s", c.opts.Username, strings.Join(capList(cn.caps), " "))
	return nil
}

// loginAllowed refuses to send the password where it must not go: never
// without TLS in the TLS modes, and in the others in clear text only to a
// loopback peer unless AllowPlainLogin (the peer's address decides, not
// the host name: "localhost." may be answered by DNS).
func (c *Client) loginAllowed(cn *conn) error {
	if err := c.credentialsAllowed(cn); err != nil {
		return err
	}
	if cn.caps.Has(goimap.CapLoginDisabled) {
		return wrapKind("login", ErrTLS, errors.New("server disables LOGIN on this connection (LOGINDISABLED): it needs TLS"))
	}
	return nil
}

// credentialsAllowed is the TLS rule of loginAllowed, for a password and an
// OAuth token alike.
func (c *Client) credentialsAllowed(cn *conn) error {
	if !cn.tls {
		switch {
		case c.opts.Security == SecurityTLS || c.opts.Security == SecurityStartTLS:
			return wrapKind("login", ErrTLS, errors.New("refusing to send credentials without TLS"))
		case !c.opts.AllowPlainLogin && !loopbackPeer(cn):
			return wrapKind("login", ErrTLS, errors.New("refusing to send credentials in clear text to a host that is not loopback "+
				"(no STARTTLS on this connection; IMAP_ALLOW_PLAINTEXT=true allows it)"))
		}
	}
	return nil
}

// tlsConfig is the configuration of one handshake; with d it records the
// negotiated version and the server's certificate.
func (c *Client) tlsConfig(d *Diagnosis) *tls.Config {
	cfg := c.opts.tlsConfig()
	if d == nil {
		return cfg
	}
	next := cfg.VerifyConnection
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		d.recordTLS(cs)
		if next != nil {
			return next(cs)
		}
		return nil
	}
	return cfg
}

// loopbackPeer reports whether the connection's peer is a loopback address.
func loopbackPeer(cn *conn) bool {
	if cn.dc == nil {
		return false
	}
	addr, ok := cn.dc.RemoteAddr().(*net.TCPAddr)
	return ok && addr.IP.IsLoopback()
}
