package mailtest

import (
	"io"
	"log"
	"net"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

// inbox is the one folder name that is case-insensitive.
const inbox = "INBOX"

// delim is imapmemserver's hierarchy delimiter, and Dovecot's in the tier.
const delim = '/'

// memUser is the user name of every in-process account.
const memUser = "alice@example.test"

// memCaps are the capabilities of the in-process server: those the project
// relies on, all of which Dovecot 2.3 has too.
var memCaps = imap.CapSet{
	imap.CapIMAP4rev1: {}, imap.CapMove: {}, imap.CapUIDPlus: {}, imap.CapSpecialUse: {},
	imap.CapListExtended: {}, imap.CapListStatus: {}, imap.CapESearch: {}, imap.CapNamespace: {},
}

// defaultFolders are the folders of a new account, as start.sh configures
// them on Dovecot: special-use ones subscribed, INBOX not.
var defaultFolders = []struct {
	name string
	use  imap.MailboxAttr
}{
	{"Sent", imap.MailboxAttrSent}, {"Drafts", imap.MailboxAttrDrafts}, {"Trash", imap.MailboxAttrTrash},
	{"Junk", imap.MailboxAttrJunk}, {"Archive", imap.MailboxAttrArchive},
}

// memServer is one in-process account: the imapmemserver user plus what
// imapmemserver does not keep (special-use attributes, subscriptions, the
// list of folders) and a signal of changes for IDLE.
type memServer struct {
	user     *imapmemserver.User
	password string

	mu sync.Mutex
	// xfer serializes COPY and MOVE: imapmemserver locks the source folder,
	// then the target, so opposite moves at once would deadlock it.
	xfer    sync.Mutex
	folders map[string]*folderMeta
	changed chan struct{} // closed and replaced at every change
}

// folderMeta is what the server knows about a folder beyond imapmemserver.
type folderMeta struct {
	use        []imap.MailboxAttr
	subscribed bool
}

// newMemAccount starts an in-process server on 127.0.0.1:0 for t.
func newMemAccount(t testing.TB) *Account {
	t.Helper()
	password := randomHex(12)
	s := &memServer{
		user:     imapmemserver.NewUser(memUser, password),
		password: password,
		folders:  make(map[string]*folderMeta),
		changed:  make(chan struct{}),
	}
	s.mustCreate(t, inbox, nil, false)
	for _, f := range defaultFolders {
		s.mustCreate(t, f.name, []imap.MailboxAttr{f.use}, true)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("mailtest: Listen() = %v", err)
	}
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return &session{srv: s}, nil, nil
		},
		Caps:         memCaps,
		InsecureAuth: true, // loopback only
		Logger:       log.New(io.Discard, "", 0),
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln) // returns when the listener is closed
	}()
	t.Cleanup(func() {
		// Close the listener and let Serve return before Server.Close:
		// Serve calls WaitGroup.Add after registering the listener, which
		// races with the Wait in a Close that comes too early.
		_ = ln.Close()
		<-done
		_ = srv.Close() // the open connections
	})
	return &Account{
		Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port,
		Username: memUser, Password: s.password,
	}
}

// mustCreate creates a folder of a new account.
func (s *memServer) mustCreate(t testing.TB, name string, use []imap.MailboxAttr, subscribed bool) {
	t.Helper()
	if err := s.user.Create(name, nil); err != nil {
		t.Fatalf("mailtest: Create(%q) = %v", name, err)
	}
	s.folders[name] = &folderMeta{use: use, subscribed: subscribed}
}

// notify wakes every IDLE session.
func (s *memServer) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.changed)
	s.changed = make(chan struct{})
}

// changes returns a channel closed at the next change.
func (s *memServer) changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// canonical spells INBOX in upper case, whatever the client sent.
func canonical(name string) string {
	if strings.EqualFold(name, inbox) {
		return inbox
	}
	return strings.TrimRight(name, string(delim))
}

// sortedNamesLocked returns the folders, INBOX first, then parents before
// children, plus the parents that exist only through their children.
func (s *memServer) sortedNamesLocked() (names []string, implied map[string]bool) {
	implied = make(map[string]bool)
	for name := range s.folders {
		names = append(names, name)
		for i := strings.IndexRune(name, delim); i >= 0; i = nextDelim(name, i) {
			if parent := name[:i]; s.folders[parent] == nil && !implied[parent] {
				implied[parent] = true
				names = append(names, parent)
			}
		}
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == inbox) != (names[j] == inbox) {
			return names[i] == inbox
		}
		return names[i] < names[j]
	})
	return names, implied
}

// nextDelim returns the index of the delimiter after index i, or -1.
func nextDelim(name string, i int) int {
	j := strings.IndexRune(name[i+1:], delim)
	if j < 0 {
		return -1
	}
	return i + 1 + j
}
