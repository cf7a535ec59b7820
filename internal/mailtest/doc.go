// Package mailtest gives tests an IMAP account to work against: by default
// an in-process server (the sandbox mail server, devmail, in memory on
// 127.0.0.1:0: the same session code email-mcp serves), and
// the real Dovecot of the test tier when EMAIL_MCP_TEST_DOVECOT=1. The same
// test then runs unchanged in both modes:
//
//	func TestArchive(t *testing.T) {
//		a := mailtest.NewAccount(t)
//		uid := a.Append(t, "INBOX", raw, `\Seen`)
//		// ... run the code under test against a.Host, a.Port, a.Username, a.Password ...
//		if got := a.Flags(t, "INBOX", uid); !slices.Contains(got, `\Seen`) { ... }
//	}
//
// # In-process mode
//
// Each NewAccount starts its own devmail server (IMAP and SMTP on
// 127.0.0.1:0, no data dir) with one user, a random password, the folders
// INBOX, Sent, Drafts, Trash, Junk and Archive with their special-use
// attributes, and devmail's capabilities (IMAP4rev1, IDLE, MOVE, UIDPLUS,
// SPECIAL-USE, LIST-EXTENDED, LIST-STATUS, ESEARCH, NAMESPACE and more:
// see package devmail). LIST answers with the attributes Dovecot 2.3
// sends. Two differences from the Dovecot tier remain: INBOX is
// subscribed, and CREATE makes a missing parent folder a real one (Dovecot
// lists it \Noselect). It speaks plain text only (TLSPort is 0, CAFile is
// ""); t.Cleanup closes it.
//
// # Dovecot mode
//
// scripts/dovecot/run-tier.sh starts a private Dovecot and sets the
// variables this package reads: DOVECOT_IMAP_ADDR, DOVECOT_IMAPS_ADDR,
// DOVECOT_CA_FILE, and either DOVECOT_TEST_DOMAIN with
// DOVECOT_TEST_PASSWORD or, failing those, DOVECOT_USER with
// DOVECOT_PASSWORD.
//
// With a test domain (what start.sh configures), each NewAccount logs in as
// a user of its own, t-<test name>-<random>@DOVECOT_TEST_DOMAIN, whose
// mailbox Dovecot creates on first login with the same six folders: tests
// never see each other's mail, and Prefix is "".
//
// Without one, all tests share the one account DOVECOT_USER: each gets a
// unique Prefix ("t-<random>/"), Folder adds it to every name but those of
// the six default folders, and t.Cleanup deletes the folders under the
// prefix and expunges the messages that Append put in folders outside it.
// Tests that count the messages of a shared folder cannot be isolated that
// way.
//
// Dovecot sets \Recent, which depends on the session: Flags leaves it out in
// both modes so that the same assertions hold.
package mailtest
