package imap_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"

	"github.com/email-mcp/email-mcp/imap"
)

const (
	testUser     = "alice@example.test"
	testPassword = "s3cret-pässword"
)

// serverMode is how the test server protects connections.
type serverMode int

const (
	modePlain    serverMode = iota // no TLS; LOGIN allowed in clear text
	modeStartTLS                   // STARTTLS offered; LOGIN only after it
	modeTLS                        // implicit TLS
)

// security is the client mode that matches a server mode.
func (m serverMode) security() imap.Security {
	return [...]imap.Security{imap.SecurityPlain, imap.SecurityStartTLS, imap.SecurityTLS}[m]
}

// Capability sets of the test server.
var (
	capsBasic    = goimap.CapSet{goimap.CapIMAP4rev1: {}}
	capsExtended = goimap.CapSet{goimap.CapIMAP4rev1: {}, goimap.CapListExtended: {},
		goimap.CapListStatus: {}, goimap.CapSpecialUse: {}}
)

// testServer is imapserver + imapmemserver on 127.0.0.1:0 with one user,
// special-use attributes, \Noselect folders and a record of what clients
// asked.
type testServer struct {
	Port int
	ln   *trackingListener
	user *imapmemserver.User
	caps goimap.CapSet

	mu             sync.Mutex
	logins         int
	special        map[string]goimap.MailboxAttr
	noselect       map[string]bool
	names          []string
	listOpts       []goimap.ListOptions
	statusNoselect int           // STATUS asked of a \Noselect folder
	searchErr      error         // answer to the next SEARCH
	changed        chan struct{} // closed and replaced at every change (notify)
	muteIdle       atomic.Bool   // IDLE reports nothing (updates come with the next command)
	quietDelete    atomic.Bool   // no BYE in IDLE when the selected folder is deleted (Dovecot 2.3)
}

// newTestServer starts a server in mode with caps (nil: capsExtended).
func newTestServer(t testing.TB, mode serverMode, caps goimap.CapSet) *testServer {
	t.Helper()
	if caps == nil {
		caps = capsExtended
	}
	ts := &testServer{
		user: imapmemserver.NewUser(testUser, testPassword), caps: caps,
		special: map[string]goimap.MailboxAttr{}, noselect: map[string]bool{},
		changed: make(chan struct{}),
	}
	ts.addFolder(t, "INBOX", "")
	opts := &imapserver.Options{
		NewSession: func(conn *imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return &testSession{ts: ts, conn: conn}, nil, nil
		},
		Caps:         caps,
		InsecureAuth: mode == modePlain,
		Logger:       log.New(io.Discard, "", 0),
	}
	if mode == modeStartTLS {
		opts.TLSConfig = testPKI(t).server
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Listen() = %v", err)
	}
	ts.ln = newTrackingListener(ln)
	ts.Port = ln.Addr().(*net.TCPAddr).Port
	var serve net.Listener = ts.ln
	if mode == modeTLS {
		serve = tls.NewListener(ts.ln, testPKI(t).server)
	}
	srv := imapserver.New(opts)
	go srv.Serve(serve)
	t.Cleanup(func() { srv.Close() })
	return ts
}

// addFolder creates a folder, with a special-use attribute when su is set.
func (ts *testServer) addFolder(t testing.TB, name string, su goimap.MailboxAttr) {
	t.Helper()
	if err := ts.user.Create(name, nil); err != nil {
		t.Fatalf("Create(%q) = %v", name, err)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.names = append(ts.names, name)
	if su != "" {
		ts.special[name] = su
	}
}

// addNoselect lists a folder that cannot be selected (a hierarchy node).
func (ts *testServer) addNoselect(name string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.names = append(ts.names, name)
	ts.noselect[name] = true
}

// appendMessage delivers a small message to folder.
func (ts *testServer) appendMessage(t testing.TB, folder string, seen bool) {
	t.Helper()
	raw := "From: bob@example.test\r\nTo: alice@example.test\r\nSubject: hello\r\n\r\nHi.\r\n"
	var flags []goimap.Flag
	if seen {
		flags = []goimap.Flag{goimap.FlagSeen}
	}
	_, err := ts.user.Append(folder, bytes.NewReader([]byte(raw)), &goimap.AppendOptions{Flags: flags, Time: time.Now()})
	if err != nil {
		t.Fatalf("Append(%q) = %v", folder, err)
	}
	ts.notify()
}

// notify wakes the sessions in IDLE: something changed.
func (ts *testServer) notify() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	close(ts.changed)
	ts.changed = make(chan struct{})
}

// changes returns a channel closed at the next notify.
func (ts *testServer) changes() <-chan struct{} {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.changed
}

// recreate deletes folder and creates it again: it gets a new UIDVALIDITY.
func (ts *testServer) recreate(t testing.TB, folder string) {
	t.Helper()
	if err := ts.user.Delete(folder); err != nil {
		t.Fatalf("Delete(%q) = %v", folder, err)
	}
	if err := ts.user.Create(folder, nil); err != nil {
		t.Fatalf("Create(%q) = %v", folder, err)
	}
	ts.notify()
}

// loginCount returns how many LOGIN commands reached the server.
func (ts *testServer) loginCount() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.logins
}

// noselectStatusCount returns how many STATUS commands named a \Noselect folder.
func (ts *testServer) noselectStatusCount() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.statusNoselect
}

// listOptions returns the options of every LIST received.
func (ts *testServer) listOptions() []goimap.ListOptions {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]goimap.ListOptions(nil), ts.listOpts...)
}

// testSession is a memserver session with our own login and LIST.
type testSession struct {
	*imapmemserver.UserSession // nil until Login
	ts                         *testServer
	conn                       *imapserver.Conn
	selected                   string // the folder selected, "" when none
	selectedUIDValidity        uint32
}

// Idle is IDLE. imapmemserver's own Idle misses an update queued between
// the "+ idling" reply and the moment its goroutine starts listening, so
// this one polls first and then after every change (notify). It hangs up
// when the selected folder was deleted or recreated, unless quietDelete.
func (s *testSession) Idle(w *imapserver.UpdateWriter, stop <-chan struct{}) error {
	if s.ts.muteIdle.Load() {
		<-stop
		return nil
	}
	for {
		changed := s.ts.changes() // before Poll: no change slips between
		if s.selected != "" && !s.ts.quietDelete.Load() && s.selectedGone() {
			s.conn.Bye("Selected mailbox was deleted, have to disconnect")
			return errors.New("selected mailbox was deleted")
		}
		if err := s.UserSession.Poll(w, true); err != nil {
			return err
		}
		select {
		case <-changed:
		case <-stop:
			return nil
		}
	}
}

// Append is APPEND; it wakes the sessions in IDLE.
func (s *testSession) Append(mailbox string, r goimap.LiteralReader, options *goimap.AppendOptions) (*goimap.AppendData, error) {
	data, err := s.UserSession.Append(mailbox, r, options)
	s.ts.notify()
	return data, err
}

func (s *testSession) Login(username, password string) error {
	s.ts.mu.Lock()
	s.ts.logins++
	s.ts.mu.Unlock()
	if username != testUser || password != testPassword {
		return imapserver.ErrAuthFailed
	}
	s.UserSession = imapmemserver.NewUserSession(s.ts.user)
	return nil
}

// List answers like a server that always sends special-use attributes
// (as Dovecot does) and honours RETURN (STATUS).
func (s *testSession) List(w *imapserver.ListWriter, ref string, patterns []string, options *goimap.ListOptions) error {
	s.ts.mu.Lock()
	s.ts.listOpts = append(s.ts.listOpts, *options)
	var l []goimap.ListData
	for _, name := range s.ts.names {
		if !matchAny(name, ref, patterns) {
			continue
		}
		d := goimap.ListData{Mailbox: name, Delim: '/', Attrs: []goimap.MailboxAttr{goimap.MailboxAttrHasNoChildren}}
		if s.ts.noselect[name] {
			d.Attrs = []goimap.MailboxAttr{goimap.MailboxAttrNoSelect, goimap.MailboxAttrHasChildren}
		} else if options.ReturnStatus != nil {
			d.Status, _ = s.ts.user.Status(name, options.ReturnStatus)
		}
		if su := s.ts.special[name]; su != "" {
			d.Attrs = append(d.Attrs, su)
		}
		l = append(l, d)
	}
	s.ts.mu.Unlock()
	for i := range l {
		if err := w.WriteList(&l[i]); err != nil {
			return err
		}
	}
	return nil
}

func matchAny(name, ref string, patterns []string) bool {
	for _, p := range patterns {
		if imapserver.MatchList(name, '/', ref, p) {
			return true
		}
	}
	return false
}

// Status records a STATUS on a \Noselect folder, which a client must not send.
func (s *testSession) Status(name string, options *goimap.StatusOptions) (*goimap.StatusData, error) {
	s.ts.mu.Lock()
	bad := s.ts.noselect[name]
	if bad {
		s.ts.statusNoselect++
	}
	s.ts.mu.Unlock()
	if bad {
		return nil, &goimap.Error{Type: goimap.StatusResponseTypeNo, Code: goimap.ResponseCodeNonExistent, Text: "Noselect"}
	}
	return s.UserSession.Status(name, options)
}

// trackingListener counts the connections it accepted, how many were open
// at most at once, and can close them all (a server-side hang-up).
type trackingListener struct {
	net.Listener

	mu                 sync.Mutex
	conns              map[*trackedConn]struct{}
	total, current, hi int
	cmds               commandLog
	hold               chan struct{} // not nil: Accept waits until it is closed
	hideIdle           atomic.Bool   // strip IDLE from the capabilities the server sends
}

func newTrackingListener(ln net.Listener) *trackingListener {
	return &trackingListener{Listener: ln, conns: map[*trackedConn]struct{}{}}
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, l: l, parser: cmdParser{log: &l.cmds}}
	l.mu.Lock()
	hold := l.hold
	l.mu.Unlock()
	if hold != nil {
		<-hold
	}
	l.mu.Lock()
	l.conns[tc] = struct{}{}
	l.total++
	l.current++
	l.hi = max(l.hi, l.current)
	l.mu.Unlock()
	return tc, nil
}

// stats returns accepted connections in all and the most open at once.
func (l *trackingListener) stats() (total, maxOpen int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total, l.hi
}

// closeAll closes every open server-side connection.
func (l *trackingListener) closeAll() {
	l.mu.Lock()
	conns := make([]*trackedConn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// pauseAccept makes the server take no new connection (clients connect,
// then wait for the greeting) until the returned resume is called; the
// test's cleanup resumes too.
func (l *trackingListener) pauseAccept(t testing.TB) (resume func()) {
	hold := make(chan struct{})
	l.mu.Lock()
	l.hold = hold
	l.mu.Unlock()
	var once sync.Once
	resume = func() {
		once.Do(func() {
			l.mu.Lock()
			l.hold = nil
			l.mu.Unlock()
			close(hold)
		})
	}
	t.Cleanup(resume)
	return resume
}

// freezeAll makes every open connection go silent: what the server writes
// is dropped, as if the network had died on the way back.
func (l *trackingListener) freezeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		c.frozen.Store(true)
	}
}

type trackedConn struct {
	net.Conn
	l      *trackingListener
	once   sync.Once
	parser cmdParser // only Read touches it
	frozen atomic.Bool
}

// Write drops everything once frozen, and strips IDLE from capability
// lists when the listener hides it (plaintext only).
func (c *trackedConn) Write(b []byte) (int, error) {
	if c.frozen.Load() {
		return len(b), nil
	}
	if c.l.hideIdle.Load() && bytes.Contains(b, []byte("CAPABILITY")) {
		if _, err := c.Conn.Write(bytes.ReplaceAll(b, []byte(" IDLE"), nil)); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// Read records the commands the client sends.
func (c *trackedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.parser.feed(b[:n])
	return n, err
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.current--
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// pki is a test CA and a server certificate for 127.0.0.1 and localhost.
type pki struct {
	roots  *x509.CertPool
	server *tls.Config
}

var (
	pkiOnce sync.Once
	pkiVal  *pki
	pkiErr  error
)

// testPKI makes the CA and certificate once per test binary.
func testPKI(t testing.TB) *pki {
	t.Helper()
	pkiOnce.Do(func() { pkiVal, pkiErr = makePKI() })
	if pkiErr != nil {
		t.Fatalf("makePKI() = %v", pkiErr)
	}
	return pkiVal
}

func makePKI() (*pki, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "email-mcp test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return &pki{roots: roots, server: &tls.Config{Certificates: []tls.Certificate{cert}}}, nil
}

// clientOptions are options for a client of ts in mode, trusting the test CA.
func clientOptions(t testing.TB, port int, mode serverMode) imap.Options {
	return imap.Options{
		Host: "127.0.0.1", Port: port, Username: testUser, Password: testPassword,
		Security:       mode.security(),
		TLSConfig:      &tls.Config{RootCAs: testPKI(t).roots},
		DialTimeout:    5 * time.Second,
		CommandTimeout: 5 * time.Second,
	}
}

// newClient returns a client closed at the end of the test.
func newClient(t testing.TB, opts imap.Options) *imap.Client {
	t.Helper()
	c := imap.New(opts)
	t.Cleanup(func() { c.Close() })
	return c
}

// silentServer accepts connections, reads whatever comes and never
// answers. It returns its port.
func silentServer(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Listen() = %v", err)
	}
	tl := newTrackingListener(ln)
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			go io.Copy(io.Discard, c) // ends when the client or closeAll closes
		}
	}()
	t.Cleanup(func() { tl.Close(); tl.closeAll() })
	return ln.Addr().(*net.TCPAddr).Port
}

// scriptedServer greets, answers CAPABILITY and LOGIN, then stays silent on
// every other command; it sends the name of each such command to seen.
func scriptedServer(t testing.TB, seen chan<- string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Listen() = %v", err)
	}
	tl := newTrackingListener(ln)
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			go script(c, seen)
		}
	}()
	t.Cleanup(func() { tl.Close(); tl.closeAll() })
	return ln.Addr().(*net.TCPAddr).Port
}

func script(c net.Conn, seen chan<- string) {
	defer c.Close()
	fmt.Fprintf(c, "* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] scripted\r\n")
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch cmd := strings.ToUpper(f[1]); cmd {
		case "CAPABILITY":
			fmt.Fprintf(c, "* CAPABILITY IMAP4rev1\r\n%s OK done\r\n", f[0])
		case "LOGIN":
			fmt.Fprintf(c, "%s OK [CAPABILITY IMAP4rev1] logged in\r\n", f[0])
		default:
			select {
			case seen <- cmd:
			default:
			}
		}
	}
}

// within runs f and fails the test if it has not returned after limit: a
// guard against hangs, not a timing assertion.
func within[T any](t testing.TB, limit time.Duration, f func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(limit):
		t.Fatalf("call still blocked after %v", limit)
		panic("unreachable")
	}
}

// noPassword fails if err's message contains the password.
func noPassword(t testing.TB, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), testPassword) {
		t.Errorf("error %q contains the password", err)
	}
}

// ctxTimeout is a context cancelled at the end of the test.
func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
