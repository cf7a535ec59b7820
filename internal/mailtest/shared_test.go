package mailtest

import (
	"os"
	"strings"
	"testing"

	"github.com/emersion/go-imap/v2"
)

func TestFolder(t *testing.T) {
	tests := []struct {
		prefix, name, want string
	}{
		{"", "Archive", "Archive"},
		{"", "INBOX", "INBOX"},
		{"t-1/", "Archive", "Archive"}, // special-use folders are shared
		{"t-1/", "Sent", "Sent"},
		{"t-1/", "Work", "t-1/Work"},
		{"t-1/", "Projects/2024", "t-1/Projects/2024"},
		{"t-1/", "INBOX", "INBOX"},
		{"t-1/", "inbox", "inbox"},
		{"t-1/", "t-1/Work", "t-1/Work"}, // already prefixed
	}
	for _, tt := range tests {
		a := &Account{Prefix: tt.prefix}
		if got := a.Folder(tt.name); got != tt.want {
			t.Errorf("Account{Prefix: %q}.Folder(%q) = %q, want %q", tt.prefix, tt.name, got, tt.want)
		}
	}
}

func TestUserPart(t *testing.T) {
	tests := []struct{ name, want string }{
		{"TestX", "testx"},
		{"TestArchive/Moves_the_message", "testarchive-moves-the-me"},
		{"Test Été", "test--t-"},
	}
	for _, tt := range tests {
		if got := userPart(tt.name); got != tt.want {
			t.Errorf("userPart(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestSharedAccountCleanup runs a "test" on the account with a prefix, as
// on a Dovecot shared by all tests, and checks that its cleanup removed
// what it added there and nothing else.
func TestSharedAccountCleanup(t *testing.T) {
	base := NewAccount(t)
	keep := base.Append(t, "INBOX", []byte(testMessage))
	shared := &Account{Host: base.Host, Port: base.Port, TLSPort: base.TLSPort, CAFile: base.CAFile,
		Username: base.Username, Password: base.Password, Dovecot: base.Dovecot, Prefix: "t-" + randomHex(6) + "/"}
	t.Run("user", func(t *testing.T) {
		t.Cleanup(func() { shared.closeHelper(t) })
		shared.CreateFolder(t, "P")
		shared.CreateFolder(t, "P/Q")
		shared.Append(t, "P/Q", []byte(testMessage))
		shared.Append(t, "INBOX", []byte(testMessage))
		shared.Append(t, "Archive", []byte(testMessage))
		if got := shared.Folder("P/Q"); !strings.HasPrefix(got, shared.Prefix) {
			t.Errorf("Folder(P/Q) = %q, want the prefix %q", got, shared.Prefix)
		}
	})

	c := base.Client(t)
	boxes, err := c.List("", "t-*", nil).Collect()
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	for _, b := range boxes {
		t.Errorf("after cleanup List(t-*) has %q, want nothing", b.Mailbox)
	}
	tests := []struct {
		folder string
		want   uint32
	}{{"INBOX", 1}, {"Archive", 0}}
	for _, tt := range tests {
		st, err := c.Status(tt.folder, &imap.StatusOptions{NumMessages: true}).Wait()
		if err != nil {
			t.Fatalf("Status(%q) = %v", tt.folder, err)
		}
		if *st.NumMessages != tt.want {
			t.Errorf("after cleanup %s has %d messages, want %d", tt.folder, *st.NumMessages, tt.want)
		}
	}
	// Flags fails the test when the message is gone.
	if got := base.Flags(t, "INBOX", keep); len(got) != 0 {
		t.Errorf("Flags(INBOX, %d) = %q, want the message kept as appended, without flags", keep, got)
	}
}

// TestDovecotSharedFallback checks the account chosen from the variables:
// a user of the test domain, or the shared DOVECOT_USER with a prefix when
// DOVECOT_TEST_DOMAIN is unset. In-process there is no such choice: the
// account is the server's only user.
func TestDovecotSharedFallback(t *testing.T) {
	if !Dovecot() {
		a := NewAccount(t)
		if a.Username != memUser || a.Prefix != "" {
			t.Errorf("in-process account = %q prefix %q, want %q and no prefix", a.Username, a.Prefix, memUser)
		}
		return
	}
	domainUser := NewAccount(t)
	t.Setenv("DOVECOT_TEST_DOMAIN", "")
	shared := NewAccount(t)
	tests := []struct {
		name     string
		a        *Account
		user     string
		prefixed bool
	}{
		{"test domain", domainUser, "", false},
		{"shared", shared, os.Getenv("DOVECOT_USER"), true},
	}
	for _, tt := range tests {
		if tt.user != "" && tt.a.Username != tt.user {
			t.Errorf("%s: Username = %q, want %q", tt.name, tt.a.Username, tt.user)
		}
		if (tt.a.Prefix != "") != tt.prefixed {
			t.Errorf("%s: Prefix = %q, want prefixed %v", tt.name, tt.a.Prefix, tt.prefixed)
		}
		// Either way the account works.
		tt.a.CreateFolder(t, "Work")
		uid := tt.a.Append(t, "Work", []byte(testMessage), `\Seen`)
		if got := tt.a.Flags(t, "Work", uid); len(got) != 1 || got[0] != `\Seen` {
			t.Errorf("%s: Flags(Work) = %q, want [\\Seen]", tt.name, got)
		}
	}
}
