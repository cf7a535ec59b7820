package devmail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	gosmtp "github.com/emersion/go-smtp"
)

// Defaults for Options.
const (
	DefaultIMAPAddr        = "127.0.0.1:1143"
	DefaultSMTPAddr        = "127.0.0.1:2525"
	DefaultUsername        = "sandbox"
	DefaultDomain          = "sandbox.localhost"
	DefaultMaxMessageBytes = 64 << 20
)

const (
	smtpMaxRecipients = 100
	smtpReadTimeout   = 5 * time.Minute // between two lines from the client
	smtpWriteTimeout  = time.Minute
	// closeWait bounds how long Close waits for connections to finish.
	closeWait = 5 * time.Second
)

// Options configures Start.
type Options struct {
	// IMAPAddr is the IMAP listen address (plaintext, LOGIN/AUTHENTICATE
	// PLAIN allowed); "127.0.0.1:0" picks a free port. Default 127.0.0.1:1143.
	IMAPAddr string
	// SMTPAddr is the SMTP listen address (STARTTLS offered); default
	// 127.0.0.1:2525.
	SMTPAddr string
	// Username is the IMAP login of the sandbox account (default "sandbox").
	Username string
	// Password is the IMAP password; required (the caller generates one).
	Password string
	// DataDir is where mail is kept across restarts; "" keeps it in memory.
	DataDir string
	// Domain is the SMTP greeting name and the "by" of Received headers
	// (default "sandbox.localhost").
	Domain string
	// MaxMessageBytes caps an SMTP message (552 above it), an IMAP APPEND
	// and a Deliver; default 64 MiB.
	MaxMessageBytes int64
	// Logger receives warnings and debug lines; nil discards them.
	Logger *slog.Logger
}

func (o *Options) setDefaults() error {
	if o.Password == "" {
		return fmt.Errorf("%w: Password is required", ErrInvalidOptions)
	}
	if strings.ContainsAny(o.Domain, " \t\r\n") {
		return fmt.Errorf("%w: Domain %q holds white space", ErrInvalidOptions, o.Domain)
	}
	if o.MaxMessageBytes < 0 {
		return fmt.Errorf("%w: MaxMessageBytes is negative", ErrInvalidOptions)
	}
	o.IMAPAddr = cmpOr(o.IMAPAddr, DefaultIMAPAddr)
	o.SMTPAddr = cmpOr(o.SMTPAddr, DefaultSMTPAddr)
	for _, a := range []struct{ name, addr string }{{"IMAPAddr", o.IMAPAddr}, {"SMTPAddr", o.SMTPAddr}} {
		_, port, err := net.SplitHostPort(a.addr)
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
			return fmt.Errorf("%w: %s %q is not host:port", ErrInvalidOptions, a.name, a.addr)
		}
	}
	o.Username = cmpOr(o.Username, DefaultUsername)
	o.Domain = cmpOr(clean(o.Domain), DefaultDomain)
	if o.MaxMessageBytes == 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Server is a running sandbox mail server: IMAP and a catch-all SMTP on
// loopback, in front of one account.
type Server struct {
	opts    Options
	log     *slog.Logger
	acct    *account
	persist *persister // nil in memory mode
	certPEM []byte

	imapSrv   *imapserver.Server
	smtpSrv   *gosmtp.Server
	imapLn    net.Listener
	smtpLn    net.Listener
	imapConns *connTracker
	smtpConns *connTracker
	sessions  *sessionSet
	serving   sync.WaitGroup // the Serve loops

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// Start restores the stored mail (with a DataDir), listens on both
// addresses and returns once both accept connections. ctx bounds the start
// only; the server runs until Close.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	s := &Server{
		opts:      opts,
		log:       opts.Logger,
		acct:      newAccount(opts.Username, opts.Password, opts.MaxMessageBytes, opts.Logger),
		imapConns: newConnTracker(),
		smtpConns: newConnTracker(),
		sessions:  newSessionSet(),
	}
	if err := s.start(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Server) start(ctx context.Context) error {
	tlsCfg, certPEM, err := selfSignedTLS(s.opts.Domain, time.Now())
	if err != nil {
		return err
	}
	s.certPEM = certPEM
	// Listen first: a second instance on the same ports stops here, before
	// it touches the data dir.
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.opts.IMAPAddr)
	if err != nil {
		return fmt.Errorf("listen IMAP on %s: %w", s.opts.IMAPAddr, err)
	}
	s.imapLn = s.imapConns.listen(ln)
	if ln, err = lc.Listen(ctx, "tcp", s.opts.SMTPAddr); err != nil {
		return fmt.Errorf("listen SMTP on %s: %w", s.opts.SMTPAddr, err)
	}
	s.smtpLn = s.smtpConns.listen(ln)
	s.warnIfExposed(s.imapLn.Addr(), s.smtpLn.Addr())
	if err := s.openStore(ctx); err != nil {
		return err
	}
	if err := s.acct.ensureDefaults(); err != nil {
		return err
	}
	if s.persist != nil {
		// Before serving: the repaired state is on disk and the journal
		// empty before the first new entry.
		if err := s.persist.snapshot(ctx); err != nil {
			return err
		}
		s.persist.start()
	}
	s.serveIMAP()
	s.serveSMTP(tlsCfg)
	return nil
}

// warnIfExposed warns when a listener is reachable from other machines:
// IMAP is plaintext and SMTP takes mail from anyone.
func (s *Server) warnIfExposed(addrs ...net.Addr) {
	for _, addr := range addrs {
		if tcp, ok := addr.(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
			s.log.Warn("devmail: sandbox listens on a non-loopback address; IMAP is plaintext and SMTP accepts mail from anyone",
				"addr", addr.String())
		}
	}
}

// openStore opens DataDir and loads its mail; in memory mode it does nothing.
func (s *Server) openStore(ctx context.Context) error {
	if s.opts.DataDir == "" {
		return nil
	}
	st, state, err := openStore(s.opts.DataDir, s.log)
	if err != nil {
		return err
	}
	s.acct.store = st
	s.persist = newPersister(s.acct, st, s.log)
	s.acct.dirty = s.persist.markDirty
	return s.acct.restore(ctx, state)
}

// imapCaps is what imapserver and imapmemserver (with our session) really
// implement. UNAUTHENTICATE is left out: advertising it panics imapserver.
var imapCaps = imap.CapSet{
	imap.CapIMAP4rev1:        {},
	imap.CapNamespace:        {},
	imap.CapUIDPlus:          {},
	imap.CapESearch:          {},
	imap.CapListExtended:     {},
	imap.CapListStatus:       {},
	imap.CapMove:             {},
	imap.CapChildren:         {},
	imap.CapSpecialUse:       {},
	imap.CapCreateSpecialUse: {},
	imap.CapStatusSize:       {},
}

func (s *Server) serveIMAP() {
	s.imapSrv = imapserver.New(&imapserver.Options{
		NewSession:   s.newIMAPSession,
		Caps:         imapCaps,
		Logger:       serverLog{log: s.log, name: "imap"},
		InsecureAuth: true, // plaintext on loopback
	})
	s.serve("IMAP", func() error { return s.imapSrv.Serve(s.imapLn) })
}

func (s *Server) newIMAPSession(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
	if !s.sessions.add() {
		return nil, nil, &imap.Error{Type: imap.StatusResponseTypeBye, Text: "Server shutting down"}
	}
	return &session{acct: s.acct, set: s.sessions}, nil, nil
}

func (s *Server) serveSMTP(tlsCfg *tls.Config) {
	srv := gosmtp.NewServer(smtpBackend{srv: s})
	srv.Domain = s.opts.Domain
	srv.TLSConfig = tlsCfg // STARTTLS
	srv.AllowInsecureAuth = true
	srv.EnableSMTPUTF8 = true // as the big providers: apps under test may use non-ASCII addresses
	srv.MaxRecipients = smtpMaxRecipients
	srv.MaxMessageBytes = s.opts.MaxMessageBytes
	srv.ReadTimeout = smtpReadTimeout
	srv.WriteTimeout = smtpWriteTimeout
	srv.ErrorLog = serverLog{log: s.log, name: "smtp"}
	s.smtpSrv = srv
	s.serve("SMTP", func() error { return srv.Serve(s.smtpLn) })
}

// serve runs a Serve loop in a goroutine that Close waits for.
func (s *Server) serve(name string, loop func() error) {
	s.serving.Add(1)
	go func() {
		defer s.serving.Done()
		if err := loop(); err != nil && !s.closed.Load() {
			s.log.Warn("devmail: server stopped", "server", name, "err", err)
		}
	}()
}

// IMAPAddr is the address IMAP listens on (the real port after ":0").
func (s *Server) IMAPAddr() string { return s.imapLn.Addr().String() }

// SMTPAddr is the address SMTP listens on.
func (s *Server) SMTPAddr() string { return s.smtpLn.Addr().String() }

// Username is the IMAP login of the sandbox account.
func (s *Server) Username() string { return s.opts.Username }

// CertificatePEM is the self-signed certificate SMTP offers with STARTTLS,
// made at Start, for clients that trust it rather than skip verification.
func (s *Server) CertificatePEM() []byte { return append([]byte(nil), s.certPEM...) }

// IMAPConnections is the number of open IMAP client connections.
func (s *Server) IMAPConnections() int { return s.imapConns.count() }

// Deliver puts raw into INBOX as an SMTP delivery to rcpts would: with
// Envelope-To and Received prepended, stored (and on disk, with a DataDir)
// before it returns.
func (s *Server) Deliver(ctx context.Context, raw []byte, rcpts []string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("deliver: %w", err)
	}
	if int64(len(raw)) > s.opts.MaxMessageBytes {
		return fmt.Errorf("deliver %d bytes (limit %d): %w", len(raw), s.opts.MaxMessageBytes, ErrTooLarge)
	}
	msg := prependTrace(raw, traceInfo{
		heloName: "localhost",
		by:       s.opts.Domain,
		proto:    "local",
		rcpts:    rcpts,
		when:     time.Now(),
	})
	return s.deliver(ctx, msg)
}

// deliver appends a finished message to INBOX.
func (s *Server) deliver(ctx context.Context, msg []byte) error {
	if s.closed.Load() {
		return fmt.Errorf("deliver: %w", ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("deliver: %w", err)
	}
	if _, err := s.acct.appendMessage(inbox, msg, nil, time.Now()); err != nil {
		return fmt.Errorf("deliver to %s: %w", inbox, err)
	}
	return nil
}

// Close stops both listeners, ends every connection and goroutine the
// server started, and writes a last snapshot (with a DataDir). It is safe to
// call more than once; later calls return the first result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.shutdown() })
	return s.closeErr
}

func (s *Server) shutdown() error {
	s.closed.Store(true)
	var errs []error
	s.stopSMTP()
	if s.persist != nil {
		s.persist.stopLoop()
	}
	if s.imapLn != nil {
		_ = s.imapLn.Close()
	}
	s.imapConns.closeAll()
	if !s.sessions.wait(closeWait) {
		s.log.Warn("devmail: IMAP sessions still open at close")
	}
	if s.persist != nil && s.imapSrv != nil {
		if err := s.persist.snapshot(context.Background()); err != nil {
			errs = append(errs, fmt.Errorf("final snapshot: %w", err))
		}
	}
	s.sessions.refuse()
	if s.imapSrv != nil {
		_ = s.imapSrv.Close()
	}
	s.serving.Wait()
	s.sessions.wait(closeWait)
	if s.acct.store != nil {
		errs = append(errs, s.acct.store.close())
	}
	return errors.Join(errs...)
}

func (s *Server) stopSMTP() {
	s.smtpConns.closeAll()
	if s.smtpLn != nil {
		_ = s.smtpLn.Close()
	}
	if s.smtpSrv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	if err := s.smtpSrv.Shutdown(ctx); errors.Is(err, context.DeadlineExceeded) {
		s.log.Warn("devmail: SMTP sessions still open at close")
	}
}
