package mailtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// errNoCert reports a CA file without a PEM certificate.
var errNoCert = errors.New("no PEM certificate in the CA file")

// newDovecotAccount reads the tier's variables and returns a user of t's
// own (with a test domain) or a prefix of the shared account.
func newDovecotAccount(t testing.TB) *Account {
	t.Helper()
	host, port := splitAddr(t, "DOVECOT_IMAP_ADDR")
	tlsHost, tlsPort := splitAddr(t, "DOVECOT_IMAPS_ADDR")
	if tlsHost != host {
		t.Fatalf("mailtest: DOVECOT_IMAP_ADDR and DOVECOT_IMAPS_ADDR name different hosts (%s, %s)", host, tlsHost)
	}
	a := &Account{Host: host, Port: port, TLSPort: tlsPort, CAFile: mustEnv(t, "DOVECOT_CA_FILE"), Dovecot: true}
	if domain := os.Getenv("DOVECOT_TEST_DOMAIN"); domain != "" {
		a.Username = "t-" + userPart(t.Name()) + "-" + randomHex(4) + "@" + domain
		a.Password = mustEnv(t, "DOVECOT_TEST_PASSWORD")
		return a
	}
	a.Username = mustEnv(t, "DOVECOT_USER")
	a.Password = mustEnv(t, "DOVECOT_PASSWORD")
	a.Prefix = "t-" + randomHex(6) + "/"
	return a
}

// mustEnv returns the variable name or fails t when it is empty.
func mustEnv(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("mailtest: %s=1 but %s is not set; run the tier with scripts/dovecot/run-tier.sh", EnvDovecot, name)
	}
	return v
}

// splitAddr parses the host:port in the variable name.
func splitAddr(t testing.TB, name string) (string, int) {
	t.Helper()
	v := mustEnv(t, name)
	host, p, err := net.SplitHostPort(v)
	if err != nil {
		t.Fatalf("mailtest: %s=%q: %v", name, v, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 || port > 65535 {
		t.Fatalf("mailtest: %s=%q: bad port", name, v)
	}
	return host, port
}

// userPart turns a test name into at most 24 characters that are safe in a
// user name (lower-case letters, digits, '-'), so that Dovecot's log says
// which test a session belongs to.
func userPart(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if b.Len() >= 24 {
			break
		}
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// cleanShared removes what the test left on a shared account: the messages
// Append put outside the prefix, then every folder under the prefix,
// children first, and the prefix itself.
func (a *Account) cleanShared(t testing.TB, c *imapclient.Client) {
	t.Helper()
	for folder, uids := range a.addedByFolder() {
		if err := expungeUIDs(c, folder, uids); err != nil {
			t.Errorf("mailtest: cleanup of %q: %v", folder, err)
		}
	}
	a.added = nil
	boxes, err := c.List("", a.Prefix+"*", nil).Collect()
	if err != nil {
		t.Errorf("mailtest: cleanup: List(%q) = %v", a.Prefix+"*", err)
		return
	}
	root := strings.TrimSuffix(a.Prefix, "/")
	names := []string{root}
	for _, b := range boxes {
		names = append(names, b.Mailbox)
	}
	// Longest first: a child goes before its parent, the root last.
	slices.SortFunc(names, func(x, y string) int { return len(y) - len(x) })
	_ = c.Unselect().Wait() // NO when nothing is selected; DELETE works either way
	for _, name := range names {
		// The root exists only as a \Noselect parent, if at all.
		if err := c.Delete(name).Wait(); err != nil && name != root {
			t.Errorf("mailtest: cleanup: Delete(%q) = %v", name, err)
		}
	}
	a.created = nil
}

// addedByFolder groups the UIDs Append returned by folder.
func (a *Account) addedByFolder() map[string][]imap.UID {
	m := make(map[string][]imap.UID)
	for _, ad := range a.added {
		m[ad.folder] = append(m[ad.folder], ad.uid)
	}
	return m
}

// expungeUIDs deletes exactly the messages uids of folder (UIDPLUS).
func expungeUIDs(c *imapclient.Client, folder string, uids []imap.UID) error {
	if _, err := c.Select(folder, nil).Wait(); err != nil {
		return fmt.Errorf("select: %w", err)
	}
	set := imap.UIDSetNum(uids...)
	store := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}
	if err := c.Store(set, store, nil).Close(); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := c.UIDExpunge(set).Close(); err != nil {
		return fmt.Errorf("expunge: %w", err)
	}
	return nil
}
