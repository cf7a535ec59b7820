package mailtest

import (
	"crypto/subtle"
	"strings"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

// session is one in-process IMAP connection. It embeds the imapmemserver
// session for the mailbox work and overrides the login, the folder
// commands (to keep special-use attributes, subscriptions and the folder
// list that imapmemserver does not report), and IDLE.
type session struct {
	*imapmemserver.UserSession // nil until LOGIN

	srv *memServer
}

var (
	_ imapserver.SessionMove      = (*session)(nil)
	_ imapserver.SessionNamespace = (*session)(nil)
)

// Login accepts only the account's user name and password.
func (s *session) Login(username, password string) error {
	userOK := subtle.ConstantTimeCompare([]byte(username), []byte(memUser)) == 1
	passOK := subtle.ConstantTimeCompare([]byte(password), []byte(s.srv.password)) == 1
	if !userOK || !passOK {
		return imapserver.ErrAuthFailed
	}
	s.UserSession = imapmemserver.NewUserSession(s.srv.user)
	return nil
}

// Close ends the session, logged in or not.
func (s *session) Close() error {
	if s.UserSession == nil {
		return nil
	}
	return s.UserSession.Close()
}

// Create is CREATE, with CREATE-SPECIAL-USE.
func (s *session) Create(name string, options *imap.CreateOptions) error {
	name = canonical(name)
	if err := s.UserSession.Create(name, options); err != nil {
		return err
	}
	meta := &folderMeta{}
	if options != nil {
		meta.use = options.SpecialUse
	}
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	s.srv.folders[name] = meta
	return nil
}

// Delete is DELETE; INBOX cannot be deleted.
func (s *session) Delete(name string) error {
	name = canonical(name)
	if name == inbox {
		return &imap.Error{Type: imap.StatusResponseTypeNo, Text: "INBOX can't be deleted"}
	}
	if err := s.UserSession.Delete(name); err != nil {
		return err
	}
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	delete(s.srv.folders, name)
	return nil
}

// Rename is RENAME; children move along, as on Dovecot.
func (s *session) Rename(oldName, newName string, options *imap.RenameOptions) error {
	oldName, newName = canonical(oldName), canonical(newName)
	if oldName == inbox {
		return &imap.Error{Type: imap.StatusResponseTypeNo, Text: "renaming INBOX is not supported here"}
	}
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	if err := s.UserSession.Rename(oldName, newName, options); err != nil {
		return err
	}
	s.srv.folders[newName] = s.srv.folders[oldName]
	delete(s.srv.folders, oldName)
	prefix := oldName + string(delim)
	var children []string
	for name := range s.srv.folders {
		if strings.HasPrefix(name, prefix) {
			children = append(children, name)
		}
	}
	for _, name := range children {
		moved := newName + string(delim) + strings.TrimPrefix(name, prefix)
		if err := s.UserSession.Rename(name, moved, options); err != nil {
			return err
		}
		s.srv.folders[moved] = s.srv.folders[name]
		delete(s.srv.folders, name)
	}
	return nil
}

// Subscribe is SUBSCRIBE.
func (s *session) Subscribe(name string) error { return s.setSubscribed(name, true) }

// Unsubscribe is UNSUBSCRIBE.
func (s *session) Unsubscribe(name string) error { return s.setSubscribed(name, false) }

func (s *session) setSubscribed(name string, on bool) error {
	name = canonical(name)
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	meta := s.srv.folders[name]
	if meta == nil {
		return &imap.Error{Type: imap.StatusResponseTypeNo, Code: imap.ResponseCodeNonExistent, Text: "No such mailbox"}
	}
	meta.subscribed = on
	return nil
}

// Select is SELECT and EXAMINE.
func (s *session) Select(name string, options *imap.SelectOptions) (*imap.SelectData, error) {
	return s.UserSession.Select(canonical(name), options)
}

// Status is STATUS.
func (s *session) Status(name string, options *imap.StatusOptions) (*imap.StatusData, error) {
	return s.UserSession.Status(canonical(name), options)
}

// Append is APPEND.
func (s *session) Append(name string, r imap.LiteralReader, options *imap.AppendOptions) (*imap.AppendData, error) {
	defer s.srv.notify()
	return s.UserSession.Append(canonical(name), r, options)
}

// Copy is COPY.
func (s *session) Copy(numSet imap.NumSet, dest string) (*imap.CopyData, error) {
	s.srv.xfer.Lock()
	defer s.srv.xfer.Unlock()
	defer s.srv.notify()
	return s.UserSession.Copy(numSet, canonical(dest))
}

// Move is MOVE.
func (s *session) Move(w *imapserver.MoveWriter, numSet imap.NumSet, dest string) error {
	s.srv.xfer.Lock()
	defer s.srv.xfer.Unlock()
	defer s.srv.notify()
	return s.UserSession.Move(w, numSet, canonical(dest))
}

// Expunge is EXPUNGE and UID EXPUNGE.
func (s *session) Expunge(w *imapserver.ExpungeWriter, uids *imap.UIDSet) error {
	defer s.srv.notify()
	return s.UserSession.Expunge(w, uids)
}

// Store is STORE.
func (s *session) Store(w *imapserver.FetchWriter, numSet imap.NumSet, flags *imap.StoreFlags, options *imap.StoreOptions) error {
	defer s.srv.notify()
	return s.UserSession.Store(w, numSet, flags, options)
}

// Idle is IDLE. imapmemserver's own Idle misses an update queued between
// the "+ idling" reply and the moment its goroutine starts listening, so
// this one polls first and then after every change of the account.
func (s *session) Idle(w *imapserver.UpdateWriter, stop <-chan struct{}) error {
	for {
		changed := s.srv.changes() // before Poll: no change slips between
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
