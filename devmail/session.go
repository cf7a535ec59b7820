package devmail

import (
	"io"
	"slices"
	"sync"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"

	"github.com/email-mcp/email-mcp/devmail/internal/memstore"
)

// session is one IMAP connection. It embeds the imapmemserver session for
// the mailbox work and overrides what imapmemserver gets wrong or does not
// know: the login check, special-use folders, INBOX protection, the STATUS
// items it leaves nil, and the hooks that keep the on-disk store in step.
type session struct {
	*memstore.UserSession // nil until LOGIN

	acct  *account
	set   *sessionSet
	close sync.Once
}

var (
	_ imapserver.SessionIMAP4rev2   = (*session)(nil)
	_ imapserver.SessionAppendLimit = (*session)(nil)
)

// Login accepts only the account's username and password.
func (s *session) Login(username, password string) error {
	if err := s.acct.login(username, password); err != nil {
		return err
	}
	s.UserSession = memstore.NewUserSession(s.acct.user)
	return nil
}

// Close ends the session; it is safe to call more than once.
func (s *session) Close() error {
	var err error
	s.close.Do(func() {
		if s.UserSession != nil {
			err = s.UserSession.Close()
		}
		s.set.done()
	})
	return err
}

// AppendLimit advertises and enforces Options.MaxMessageBytes for APPEND.
func (s *session) AppendLimit() uint32 { return s.acct.appendLimit }

// Create is CREATE, with CREATE-SPECIAL-USE.
func (s *session) Create(name string, options *imap.CreateOptions) error {
	var use []imap.MailboxAttr
	if options != nil {
		use = options.SpecialUse
	}
	return s.acct.createFolder(name, use)
}

// Delete is DELETE.
func (s *session) Delete(name string) error { return s.acct.deleteFolder(name) }

// Rename is RENAME.
func (s *session) Rename(oldName, newName string, _ *imap.RenameOptions) error {
	return s.acct.renameFolder(oldName, newName)
}

// Subscribe is SUBSCRIBE.
func (s *session) Subscribe(name string) error { return s.acct.setSubscribed(name, true) }

// Unsubscribe is UNSUBSCRIBE.
func (s *session) Unsubscribe(name string) error { return s.acct.setSubscribed(name, false) }

// List is LIST and LSUB with special-use attributes.
func (s *session) List(w *imapserver.ListWriter, ref string, patterns []string, options *imap.ListOptions) error {
	return s.acct.list(w, ref, patterns, options)
}

// Status is STATUS.
func (s *session) Status(name string, options *imap.StatusOptions) (*imap.StatusData, error) {
	return s.acct.status(name, options)
}

// Append is APPEND; the message is stored (on disk too, with a DataDir)
// before the tagged OK. A message whose header block does not parse gets an
// empty line in front, so that FETCH BODY[] still returns its bytes.
func (s *session) Append(name string, r imap.LiteralReader, options *imap.AppendOptions) (*imap.AppendData, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if !headerParses(raw) {
		// imapserver would serve an empty BODY[]: keep raw as the body of a
		// message with an empty header block instead.
		raw = append([]byte(lineEnding(raw)), raw...)
	}
	flags := slices.DeleteFunc(slices.Clone(options.Flags), func(f imap.Flag) bool { return isRecent(string(f)) })
	return s.acct.appendMessage(name, raw, flags, options.Time)
}

// Copy is COPY.
func (s *session) Copy(numSet imap.NumSet, dest string) (*imap.CopyData, error) {
	s.acct.mu.RLock()
	defer s.acct.mu.RUnlock()
	s.acct.xfer.Lock()
	defer s.acct.xfer.Unlock()
	defer s.acct.changed()
	return s.UserSession.Copy(numSet, dest)
}

// Move is MOVE.
func (s *session) Move(w *imapserver.MoveWriter, numSet imap.NumSet, dest string) error {
	s.acct.mu.RLock()
	defer s.acct.mu.RUnlock()
	s.acct.xfer.Lock()
	defer s.acct.xfer.Unlock()
	defer s.acct.changed()
	return s.UserSession.Move(w, numSet, dest)
}

// Expunge is EXPUNGE and UID EXPUNGE.
func (s *session) Expunge(w *imapserver.ExpungeWriter, uids *imap.UIDSet) error {
	s.acct.mu.RLock()
	defer s.acct.mu.RUnlock()
	defer s.acct.changed()
	return s.UserSession.Expunge(w, uids)
}

// Store is STORE; flag changes reach the disk with the next snapshot.
func (s *session) Store(w *imapserver.FetchWriter, numSet imap.NumSet, flags *imap.StoreFlags, options *imap.StoreOptions) error {
	defer s.acct.changed()
	return s.UserSession.Store(w, numSet, flags, options)
}

// Idle is IDLE. imapmemserver's own Idle misses an update queued between
// the "+ idling" reply and the moment its goroutine starts listening (the
// EXISTS of a delivery then waits for the next change), so this one polls
// first and then after every change of the account.
func (s *session) Idle(w *imapserver.UpdateWriter, stop <-chan struct{}) error {
	for {
		changed := s.acct.changes() // before Poll: no change can slip between
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

// Fetch is FETCH; a body fetch without PEEK sets \Seen, which the next
// snapshot saves.
func (s *session) Fetch(w *imapserver.FetchWriter, numSet imap.NumSet, options *imap.FetchOptions) error {
	if slices.ContainsFunc(options.BodySection, func(bs *imap.FetchItemBodySection) bool { return !bs.Peek }) {
		defer s.acct.changed()
	}
	return s.UserSession.Fetch(w, numSet, options)
}
