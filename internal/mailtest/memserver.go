package mailtest

import (
	"context"
	"net"
	"strconv"
	"testing"

	"github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/devmail"
)

// inbox is the one folder name that is case-insensitive.
const inbox = "INBOX"

// memUser is the user name of every in-process account.
const memUser = "alice@example.test"

// defaultFolders are the folders of a new account besides INBOX, as
// start.sh configures them on Dovecot and devmail creates them.
var defaultFolders = []struct {
	name string
	use  imap.MailboxAttr
}{
	{"Sent", imap.MailboxAttrSent}, {"Drafts", imap.MailboxAttrDrafts}, {"Trash", imap.MailboxAttrTrash},
	{"Junk", imap.MailboxAttrJunk}, {"Archive", imap.MailboxAttrArchive},
}

// newMemAccount starts an in-process server for t: the sandbox mail server
// (devmail, in memory) on 127.0.0.1:0, so that tests run against the same
// IMAP session code email-mcp serves when no IMAP_HOST is set.
func newMemAccount(t testing.TB) *Account {
	t.Helper()
	password := randomHex(12)
	srv, err := devmail.Start(context.Background(), devmail.Options{
		IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0",
		Username: memUser, Password: password,
	})
	if err != nil {
		t.Fatalf("mailtest: devmail.Start() = %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	_, portStr, err := net.SplitHostPort(srv.IMAPAddr())
	if err != nil {
		t.Fatalf("mailtest: IMAPAddr() = %q: %v", srv.IMAPAddr(), err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		t.Fatalf("mailtest: IMAPAddr() = %q: %v", srv.IMAPAddr(), err)
	}
	return &Account{Host: "127.0.0.1", Port: port, Username: memUser, Password: password}
}
