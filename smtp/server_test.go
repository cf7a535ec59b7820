package smtp_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"

	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/smtp"
)

const (
	testUser = "agent@example.com"
	testPass = "s3cret-pass"
)

// serverMode is how the test server protects connections.
type serverMode int

const (
	plainServer    serverMode = iota // no TLS at all
	startTLSServer                   // offers STARTTLS
	implicitServer                   // TLS from the first byte
)

// received is one message the test server accepted.
type received struct {
	From   string
	To     []string
	Data   []byte
	TLS    bool
	Authed bool
	UTF8   bool // MAIL FROM had SMTPUTF8
}

// backend records what arrives and injects failures. Set the fields before
// the server starts.
type backend struct {
	mechs       []string                     // AUTH mechanisms; default PLAIN
	requireAuth bool                         // MAIL before AUTH -> 502 5.7.0
	rcptErr     map[string]*gosmtp.SMTPError // per recipient; "*" for all
	dataErr     *gosmtp.SMTPError            // answer after the data
	dropInData  bool                         // close the connection mid-DATA
	stallData   chan struct{}                // stop reading DATA until closed
	maxBytes    int64                        // SIZE limit; 0 none
	smtputf8    bool                         // offer SMTPUTF8
	mu          sync.Mutex
	msgs        []received
	mails       int // MAIL commands seen
	auths       int // AUTH exchanges started
	// bearer, when set, decides on XOAUTH2 and OAUTHBEARER tokens (offer
	// them in mechs); tokens records each token tried.
	bearer mailtest.BearerCheck
	tokens []string
}

func (b *backend) NewSession(c *gosmtp.Conn) (gosmtp.Session, error) {
	return &session{b: b, conn: c}, nil
}

func (b *backend) received() []received {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]received(nil), b.msgs...)
}

func (b *backend) counts() (mails, auths int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.mails, b.auths
}

type session struct {
	b      *backend
	conn   *gosmtp.Conn
	from   string
	to     []string
	authed bool
	utf8   bool
}

func (s *session) AuthMechanisms() []string {
	if s.b.mechs != nil {
		return s.b.mechs
	}
	return []string{sasl.Plain}
}

func (s *session) Auth(mech string) (sasl.Server, error) {
	s.b.mu.Lock()
	s.b.auths++
	s.b.mu.Unlock()
	check := func(user, pass string) error {
		if user != testUser || pass != testPass {
			return gosmtp.ErrAuthFailed
		}
		s.authed = true
		return nil
	}
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(_, user, pass string) error { return check(user, pass) }), nil
	case sasl.Login:
		return &loginServer{check: check}, nil
	case "XOAUTH2", sasl.OAuthBearer:
		if s.b.bearer != nil {
			return mailtest.BearerServer(mech, s.bearerCheck, func(_, token string) error {
				return &gosmtp.SMTPError{Code: 535, EnhancedCode: gosmtp.EnhancedCode{5, 7, 8}, Message: "token " + token + " refused"}
			}), nil
		}
	}
	return nil, gosmtp.ErrAuthUnknownMechanism
}

func (s *session) bearerCheck(user, token string) *sasl.OAuthBearerError {
	s.b.mu.Lock()
	s.b.tokens = append(s.b.tokens, token)
	s.b.mu.Unlock()
	e := s.b.bearer(user, token)
	s.authed = e == nil
	return e
}

func (s *session) Mail(from string, opts *gosmtp.MailOptions) error {
	s.utf8 = opts != nil && opts.UTF8
	s.b.mu.Lock()
	s.b.mails++
	s.b.mu.Unlock()
	if s.b.requireAuth && !s.authed {
		return gosmtp.ErrAuthRequired
	}
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	if e := s.b.rcptErr["*"]; e != nil {
		return e
	}
	if e := s.b.rcptErr[to]; e != nil {
		return e
	}
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	if s.b.dropInData {
		_, _ = io.ReadFull(r, make([]byte, 64))
		_ = s.conn.Conn().Close()
		return errors.New("dropped on purpose")
	}
	if s.b.stallData != nil {
		<-s.b.stallData
		return errors.New("stalled on purpose")
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if s.b.dataErr != nil {
		return s.b.dataErr
	}
	_, isTLS := s.conn.TLSConnectionState()
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.msgs = append(s.b.msgs, received{From: s.from, To: s.to, Data: data, TLS: isTLS, Authed: s.authed, UTF8: s.utf8})
	return nil
}

func (s *session) Reset()        { s.from, s.to = "", nil }
func (s *session) Logout() error { return nil }

// loginServer is the server side of AUTH LOGIN (go-sasl has only the
// client): Username:, Password:, or Password: right away after an initial
// response.
type loginServer struct {
	check func(user, pass string) error
	user  string
	state int
}

func (l *loginServer) Next(resp []byte) ([]byte, bool, error) {
	switch l.state {
	case 0:
		if resp != nil {
			l.user, l.state = string(resp), 2
			return []byte("Password:"), false, nil
		}
		l.state = 1
		return []byte("Username:"), false, nil
	case 1:
		l.user, l.state = string(resp), 2
		return []byte("Password:"), false, nil
	}
	return nil, true, l.check(l.user, string(resp))
}

// testPKI is a self-signed certificate for 127.0.0.1 and the pool trusting
// it, made once per test binary.
var testPKI = sync.OnceValues(func() (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "email-mcp test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		panic(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, pool
})

// newTestServer runs a go-smtp server for be on 127.0.0.1:0 and returns its
// port; it stops at the end of the test.
func newTestServer(t *testing.T, mode serverMode, be *backend) int {
	t.Helper()
	s := gosmtp.NewServer(be)
	s.Domain = "localhost"
	s.AllowInsecureAuth = true // AUTH over plaintext: the client's policy is under test
	s.ErrorLog = log.New(io.Discard, "", 0)
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	s.MaxMessageBytes = be.maxBytes
	s.EnableSMTPUTF8 = be.smtputf8
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := testPKI()
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	switch mode {
	case startTLSServer:
		s.TLSConfig = cfg
	case implicitServer:
		ln = tls.NewListener(ln, cfg)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = s.Close()
		_ = ln.Close() // Close misses a listener that Serve has not registered yet
		<-done
	})
	return ln.Addr().(*net.TCPAddr).Port
}

// newSilentServer accepts connections and never answers. accepted gets a
// value per connection (never blocking).
func newSilentServer(t *testing.T) (port int, accepted <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{}, 16)
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().(*net.TCPAddr).Port, ch
}

// newSender makes a Sender for a test server on 127.0.0.1, trusting the
// test certificate and logging in as testUser; edit adjusts the options.
func newSender(port int, sec smtp.Security, edit ...func(*smtp.Options)) *smtp.Sender {
	_, pool := testPKI()
	o := smtp.Options{
		Host: "127.0.0.1", Port: port, Security: sec,
		Username: testUser, Password: testPass,
		TLSConfig: &tls.Config{RootCAs: pool},
	}
	for _, e := range edit {
		e(&o)
	}
	return smtp.New(o)
}

// testMessage is a small valid message with two To, a Cc and a Bcc.
func testMessage() *smtp.Message {
	return &smtp.Message{
		From:    smtp.Address{Name: "Agent", Email: testUser},
		To:      []smtp.Address{{Name: "Bob", Email: "bob@example.com"}, {Email: "carol@example.com"}},
		Cc:      []smtp.Address{{Email: "dave@example.com"}},
		Bcc:     []smtp.Address{{Email: "hidden@example.com"}},
		Subject: "Hello",
		Text:    "Hi there.\n",
	}
}

// within runs f and fails the test if it has not returned after a generous
// bound (a guard against hangs, not a timing assertion).
func within[T any](t *testing.T, f func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(60 * time.Second):
		t.Fatal("call did not return within 60s")
		panic("unreachable")
	}
}

// ctxTimeout is a context for one test exchange.
func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
