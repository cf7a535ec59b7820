package mailtest

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// EnvDovecot is the variable that switches tests to the Dovecot tier when
// it is "1".
const EnvDovecot = "EMAIL_MCP_TEST_DOVECOT"

// dialTimeout bounds the TCP and TLS handshake of every helper connection.
const dialTimeout = 10 * time.Second

// Account is an IMAP account a test can use: either an in-process
// devmail server (default) or the Dovecot of the tier.
type Account struct {
	Host               string
	Port               int // plain text, STARTTLS offered on Dovecot
	TLSPort            int // implicit TLS, 0 if none
	Username, Password string
	CAFile             string // Dovecot's CA, "" in-process
	Dovecot            bool
	Prefix             string // folder prefix unique to this test on a shared Dovecot account, "" otherwise

	mu      sync.Mutex
	helper  *imapclient.Client // the connection Append, CreateFolder and Flags share
	created []string           // folders CreateFolder made, for cleanup on a shared account
	added   []appended         // messages Append put outside Prefix, for cleanup on a shared account
}

// appended is a message Append stored.
type appended struct {
	folder string
	uid    imap.UID
}

// Dovecot reports whether the tests run against the Dovecot tier
// (EMAIL_MCP_TEST_DOVECOT=1).
func Dovecot() bool { return os.Getenv(EnvDovecot) == "1" }

// NewAccount returns an account for t: a fresh in-process server, or on the
// Dovecot tier a user (or a folder prefix) of t's own. Everything it starts
// or creates is released by t.Cleanup.
func NewAccount(t testing.TB) *Account {
	t.Helper()
	var a *Account
	if Dovecot() {
		a = newDovecotAccount(t)
	} else {
		a = newMemAccount(t)
	}
	t.Cleanup(func() { a.closeHelper(t) })
	return a
}

// NewInProcessAccount is NewAccount's in-process server on every tier, for
// a test that must change what every account has (delete Trash, say),
// which a shared Dovecot account must not see.
func NewInProcessAccount(t testing.TB) *Account {
	t.Helper()
	a := newMemAccount(t)
	t.Cleanup(func() { a.closeHelper(t) })
	return a
}

// Addr is the host:port of the plain-text (and STARTTLS) IMAP port.
func (a *Account) Addr() string { return net.JoinHostPort(a.Host, strconv.Itoa(a.Port)) }

// Folder is name with the test's prefix on a shared Dovecot account. The
// folders every account has (INBOX in any case, Sent, Drafts, Trash, Junk,
// Archive), a name that has the prefix already, and every name when Prefix
// is "" stay as they are.
func (a *Account) Folder(name string) string {
	if a.Prefix == "" || strings.EqualFold(name, inbox) || strings.HasPrefix(name, a.Prefix) || isDefaultFolder(name) {
		return name
	}
	return a.Prefix + name
}

// isDefaultFolder reports one of the special-use folders of every account.
func isDefaultFolder(name string) bool {
	for _, f := range defaultFolders {
		if f.name == name {
			return true
		}
	}
	return false
}

// Client returns a new logged-in client for assertions, over implicit TLS
// with the CA on Dovecot and in plain text in-process; t.Cleanup logs out.
func (a *Account) Client(t testing.TB) *imapclient.Client {
	t.Helper()
	c, err := a.dial()
	if err != nil {
		t.Fatalf("mailtest: dial %s: %v", a.Host, err)
	}
	if err := c.Login(a.Username, a.Password).Wait(); err != nil {
		c.Close()
		t.Fatalf("mailtest: Login(%q) = %v", a.Username, err)
	}
	t.Cleanup(func() { logout(c) })
	return c
}

// CreateFolder creates Folder(name) and fails t if that fails.
func (a *Account) CreateFolder(t testing.TB, name string) {
	t.Helper()
	name = a.Folder(name)
	a.withHelper(t, func(c *imapclient.Client) {
		if err := c.Create(name, nil).Wait(); err != nil {
			t.Fatalf("mailtest: Create(%q) = %v", name, err)
		}
		a.created = append(a.created, name)
	})
}

// Append stores raw in Folder(folder) with flags and the current time as
// internal date, and returns its UID.
func (a *Account) Append(t testing.TB, folder string, raw []byte, flags ...string) uint32 {
	t.Helper()
	return a.AppendAt(t, folder, raw, time.Now(), flags...)
}

// AppendAt is Append with date as internal date, in date's zone.
func (a *Account) AppendAt(t testing.TB, folder string, raw []byte, date time.Time, flags ...string) uint32 {
	t.Helper()
	folder = a.Folder(folder)
	opts := &imap.AppendOptions{Time: date}
	for _, f := range flags {
		opts.Flags = append(opts.Flags, imap.Flag(f))
	}
	var uid imap.UID
	a.withHelper(t, func(c *imapclient.Client) {
		cmd := c.Append(folder, int64(len(raw)), opts)
		_, werr := bytes.NewReader(raw).WriteTo(cmd)
		cerr := cmd.Close()
		data, err := cmd.Wait()
		if err == nil {
			err = werr
		}
		if err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatalf("mailtest: Append(%q) = %v", folder, err)
		}
		if data.UID == 0 {
			t.Fatalf("mailtest: Append(%q) returned no APPENDUID", folder)
		}
		uid = data.UID
		if a.Prefix != "" && !strings.HasPrefix(folder, a.Prefix) {
			a.added = append(a.added, appended{folder, uid})
		}
	})
	return uint32(uid)
}

// Flags returns the flags of message uid in Folder(folder), sorted and
// without \Recent, read with a FETCH of FLAGS only (EXAMINE, so nothing
// changes).
func (a *Account) Flags(t testing.TB, folder string, uid uint32) []string {
	t.Helper()
	folder = a.Folder(folder)
	var out []string
	a.withHelper(t, func(c *imapclient.Client) {
		if _, err := c.Select(folder, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
			t.Fatalf("mailtest: Examine(%q) = %v", folder, err)
		}
		msgs, err := c.Fetch(imap.UIDSetNum(imap.UID(uid)), &imap.FetchOptions{UID: true, Flags: true}).Collect()
		if err != nil {
			t.Fatalf("mailtest: Fetch(%q, UID %d) = %v", folder, uid, err)
		}
		if len(msgs) != 1 {
			t.Fatalf("mailtest: Fetch(%q, UID %d): %d messages, want 1", folder, uid, len(msgs))
		}
		out = []string{}
		for _, f := range msgs[0].Flags {
			if !strings.EqualFold(string(f), `\Recent`) {
				out = append(out, string(f))
			}
		}
		slices.Sort(out)
	})
	return out
}

// withHelper runs f with the shared helper connection, dialling it first if
// needed; a failed f (t.Fatalf) drops the connection.
func (a *Account) withHelper(t testing.TB, f func(c *imapclient.Client)) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.helper == nil {
		c, err := a.dial()
		if err != nil {
			t.Fatalf("mailtest: dial %s: %v", a.Host, err)
		}
		if err := c.Login(a.Username, a.Password).Wait(); err != nil {
			c.Close()
			t.Fatalf("mailtest: Login(%q) = %v", a.Username, err)
		}
		a.helper = c
	}
	ok := false
	defer func() {
		if !ok {
			a.helper.Close()
			a.helper = nil
		}
	}()
	f(a.helper)
	ok = true
}

// closeHelper cleans up what the test left on a shared account, then closes
// the helper connection.
func (a *Account) closeHelper(t testing.TB) {
	if a.Prefix != "" && (len(a.created) > 0 || len(a.added) > 0) {
		a.withHelper(t, func(c *imapclient.Client) { a.cleanShared(t, c) })
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.helper != nil {
		logout(a.helper)
		a.helper = nil
	}
}

// dial connects to the account's server: implicit TLS when there is a TLS
// port (verified against CAFile), plain text otherwise.
func (a *Account) dial() (*imapclient.Client, error) {
	return a.dialOpts(nil)
}

// dialOpts is dial with client options (a copy gets the dialer and TLS).
func (a *Account) dialOpts(base *imapclient.Options) (*imapclient.Client, error) {
	opts := &imapclient.Options{}
	if base != nil {
		*opts = *base
	}
	opts.Dialer = &net.Dialer{Timeout: dialTimeout}
	if a.TLSPort == 0 {
		return imapclient.DialInsecure(a.Addr(), opts)
	}
	cfg, err := a.tlsConfig()
	if err != nil {
		return nil, err
	}
	opts.TLSConfig = cfg
	return imapclient.DialTLS(net.JoinHostPort(a.Host, strconv.Itoa(a.TLSPort)), opts)
}

// tlsConfig trusts only CAFile.
func (a *Account) tlsConfig() (*tls.Config, error) {
	pem, err := os.ReadFile(a.CAFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errNoCert
	}
	return &tls.Config{RootCAs: pool, ServerName: a.Host, MinVersion: tls.VersionTLS12}, nil
}

// logout ends c politely, then closes it whatever the server says.
func logout(c *imapclient.Client) {
	_ = c.Logout().Wait()
	_ = c.Close()
}

// randomHex returns 2n random hex digits.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
