package gosdk

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
)

// account is the mailbox behind one server under test: the variables that
// point email-mcp at it, the address whose mail lands in its INBOX, and the
// SMTP server through which an app under test sends it mail.
type account struct {
	tier     string   // "sandbox" or "dovecot"
	env      []string // the server's mail variables
	me       string   // INBOX_ADDRESS (the sandbox's own address on the sandbox)
	smtpAddr string   // where the app's mail goes in
	smtpUser string   // the app's SMTP login; empty: none (the sandbox takes anyone)
	smtpPass string
	// app is the app's own address, the From of its mail. Replies go to it,
	// so it must be deliverable: the sandbox takes any address, the test
	// Dovecot only its test domain (LMTP refuses app@example.test, and
	// reply_email answers SEND_REJECTED).
	app string
}

// newAccount is the tier that E2E_DOVECOT_ENV selects: without it, the
// embedded sandbox on free loopback ports; with it (an env file written by
// scripts/dovecot/start.sh), a fresh user of that Dovecot's test domain
// behind an SMTP relay that delivers by LMTP.
func newAccount(t *testing.T) *account {
	t.Helper()
	if f := os.Getenv("E2E_DOVECOT_ENV"); f != "" {
		return dovecotAccount(t, readEnvFile(t, f))
	}
	return sandboxAccount(t)
}

func sandboxAccount(t *testing.T) *account {
	t.Helper()
	smtpAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	return &account{tier: "sandbox", me: "agent@sandbox.localhost", app: "app@example.test", smtpAddr: smtpAddr,
		env: []string{"DEV_SMTP_ADDR=" + smtpAddr, fmt.Sprintf("DEV_IMAP_ADDR=127.0.0.1:%d", freePort(t))}}
}

// dovecotAccount logs in over IMAPS, trusting the test CA, as a user that
// no other server uses; its mail goes out and comes in through one relay.
func dovecotAccount(t *testing.T, dv map[string]string) *account {
	t.Helper()
	for _, k := range []string{"DOVECOT_IMAPS_ADDR", "DOVECOT_LMTP_ADDR", "DOVECOT_TEST_DOMAIN", "DOVECOT_TEST_PASSWORD", "DOVECOT_CA_FILE"} {
		if dv[k] == "" {
			t.Fatalf("E2E_DOVECOT_ENV: %s missing", k)
		}
	}
	host, port, err := net.SplitHostPort(dv["DOVECOT_IMAPS_ADDR"])
	if err != nil {
		t.Fatalf("DOVECOT_IMAPS_ADDR: %v", err)
	}
	user := "gosdk-" + randomHex(t) + "@" + dv["DOVECOT_TEST_DOMAIN"]
	pass := dv["DOVECOT_TEST_PASSWORD"]
	relay := startRelay(t, dv["DOVECOT_LMTP_ADDR"], pass)
	_, relayPort, _ := net.SplitHostPort(relay)
	return &account{tier: "dovecot", me: user, smtpAddr: relay,
		app: "app@" + dv["DOVECOT_TEST_DOMAIN"], smtpUser: "app@" + dv["DOVECOT_TEST_DOMAIN"], smtpPass: pass,
		env: []string{"IMAP_HOST=" + host, "IMAP_PORT=" + port, "IMAP_SSL=true",
			"TLS_CA_FILE=" + dv["DOVECOT_CA_FILE"], "IMAP_USER=" + user, "IMAP_PASSWORD=" + pass,
			"INBOX_ADDRESS=" + user, "SMTP_HOST=127.0.0.1", "SMTP_PORT=" + relayPort, "SMTP_STARTTLS=false",
			// Waits pushed by IDLE alone, as on a remote server: on loopback
			// the default also polls with NOOP every 25 ms, which would
			// hide an IDLE that reports nothing.
			"WAIT_POLL_MS=0"}}
}

// readEnvFile reads the NAME=value lines that start.sh writes (bash's
// printf %q: plain words, or a word in single quotes).
func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("E2E_DOVECOT_ENV: %v", err)
	}
	defer f.Close()
	vars := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		if strings.HasPrefix(value, "$'") || strings.Contains(value, `\`) {
			t.Fatalf("E2E_DOVECOT_ENV: %s: a quoted form this reader does not take", name)
		}
		vars[name] = strings.TrimSuffix(strings.TrimPrefix(value, "'"), "'")
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("E2E_DOVECOT_ENV: %v", err)
	}
	return vars
}

func randomHex(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
