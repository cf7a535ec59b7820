package devmail

import (
	"crypto/subtle"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"

	"github.com/email-mcp/email-mcp/devmail/internal/memstore"
)

// mailboxDelim is the memory store's hierarchy delimiter.
const mailboxDelim = '/'

// inbox is the one folder that always exists and cannot be deleted or
// renamed here.
const inbox = "INBOX"

// defaultFolders exist at every start, with their special-use attribute.
var defaultFolders = []struct {
	name string
	attr imap.MailboxAttr
}{
	{"Sent", imap.MailboxAttrSent},
	{"Drafts", imap.MailboxAttrDrafts},
	{"Trash", imap.MailboxAttrTrash},
	{"Junk", imap.MailboxAttrJunk},
	{"Archive", imap.MailboxAttrArchive},
}

// specialUseAttrs are the attributes of RFC 6154 that CREATE … (USE (…))
// may set.
var specialUseAttrs = []imap.MailboxAttr{
	imap.MailboxAttrAll, imap.MailboxAttrArchive, imap.MailboxAttrDrafts, imap.MailboxAttrFlagged,
	imap.MailboxAttrJunk, imap.MailboxAttrSent, imap.MailboxAttrTrash,
}

// folder is what the account knows about a folder beyond imapmemserver,
// which neither stores nor reports special-use attributes.
type folder struct {
	specialUse []imap.MailboxAttr
	subscribed bool
}

// account is the single sandbox account: the imapmemserver user plus the
// folder registry that gives LIST its special-use attributes, and the hooks
// that keep the on-disk store in step.
type account struct {
	user        *memstore.User
	username    string
	password    string
	appendLimit uint32
	log         *slog.Logger

	// mu orders mutations against snapshots of the store: structural
	// mutations (append, copy, move, expunge, create, delete, rename) hold it
	// shared, a snapshot holds it exclusively so it reads one consistent state.
	mu sync.RWMutex
	// xfer serializes COPY and MOVE: imapmemserver locks the source folder,
	// then the target, so a move A→B and one B→A at once deadlock it for
	// good. Held inside mu.
	xfer sync.Mutex

	foldersMu sync.Mutex
	folders   map[string]*folder

	store *store // nil: in memory only
	dirty func() // asks for a snapshot soon; never nil

	notifyMu sync.Mutex
	notify   chan struct{} // closed at the next change; nil until asked for
}

func newAccount(username, password string, maxBytes int64, log *slog.Logger) *account {
	limit := uint32(min(maxBytes, int64(^uint32(0))))
	a := &account{
		user:        memstore.NewUser(username, password),
		username:    username,
		password:    password,
		appendLimit: limit,
		log:         log,
		folders:     make(map[string]*folder),
		dirty:       func() {},
	}
	a.user.SetObserver(a.observe)
	return a
}

// observe journals a COPY, MOVE or EXPUNGE (the memory store reports it
// with the new UIDs), so that a crash before the next snapshot can neither
// bring expunged mail back nor hand out a copy's UID a second time.
func (a *account) observe(c memstore.Change) {
	if a.store == nil {
		return
	}
	e := journalEntry{
		Op: opChange, Folder: c.Dest, UIDValidity: c.DestUIDValidity,
		Source: c.Source, SourceUIDValidity: c.SourceUIDValidity, Expunged: c.Expunged,
	}
	for _, m := range c.Added {
		e.Added = append(e.Added, messageState{UID: m.UID, File: m.Tag, Flags: flagStrings(m.Flags), Date: m.Date})
	}
	a.store.logOp(e)
}

// login checks IMAP credentials in constant time.
func (a *account) login(username, password string) error {
	u := subtle.ConstantTimeCompare([]byte(username), []byte(a.username))
	p := subtle.ConstantTimeCompare([]byte(password), []byte(a.password))
	if u&p != 1 {
		return imapserver.ErrAuthFailed
	}
	return nil
}

// createLocked creates a folder in imapmemserver and the registry; the
// caller holds foldersMu.
func (a *account) createLocked(name string, specialUse []imap.MailboxAttr, subscribed bool) error {
	if err := a.user.Create(name, nil); err != nil {
		return err
	}
	return a.registerLocked(name, specialUse, subscribed)
}

// registerLocked adds a folder that the memory store has to the registry.
func (a *account) registerLocked(name string, specialUse []imap.MailboxAttr, subscribed bool) error {
	if subscribed {
		if err := a.user.Subscribe(name); err != nil {
			return err
		}
	}
	a.folders[name] = &folder{specialUse: slices.Clone(specialUse), subscribed: subscribed}
	return nil
}

// ensureDefaults creates INBOX and the special-use folders that are missing
// and gives an existing default folder its attribute when it has none.
func (a *account) ensureDefaults() error {
	a.foldersMu.Lock()
	defer a.foldersMu.Unlock()
	if a.folders[inbox] == nil {
		if err := a.createLocked(inbox, nil, true); err != nil {
			return fmt.Errorf("create %s: %w", inbox, err)
		}
	}
	for _, d := range defaultFolders {
		f := a.folders[d.name]
		if f == nil {
			if err := a.createLocked(d.name, []imap.MailboxAttr{d.attr}, true); err != nil {
				return fmt.Errorf("create %s: %w", d.name, err)
			}
		} else if len(f.specialUse) == 0 {
			f.specialUse = []imap.MailboxAttr{d.attr}
		}
	}
	return nil
}

// createFolder is IMAP CREATE, with CREATE-SPECIAL-USE.
func (a *account) createFolder(name string, specialUse []imap.MailboxAttr) error {
	name = strings.TrimRight(name, string(mailboxDelim))
	if name == "" {
		return noError("", "Invalid mailbox name")
	}
	for _, attr := range specialUse {
		if !slices.Contains(specialUseAttrs, attr) {
			return noError("USEATTR", fmt.Sprintf("Unsupported special-use attribute %s", attr))
		}
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	a.foldersMu.Lock()
	defer a.foldersMu.Unlock()
	if a.folders[name] != nil {
		return noError(imap.ResponseCodeAlreadyExists, "Mailbox already exists")
	}
	// RFC 3501 section 6.3.3: create the superior folders that are missing.
	for i, c := range name {
		if c == mailboxDelim && i > 0 && name[i-1] != mailboxDelim && a.folders[name[:i]] == nil {
			if err := a.createJournaledLocked(name[:i], nil); err != nil {
				return err
			}
		}
	}
	if err := a.createJournaledLocked(name, specialUse); err != nil {
		return err
	}
	a.dirty()
	return nil
}

func (a *account) createJournaledLocked(name string, specialUse []imap.MailboxAttr) error {
	if err := a.createLocked(name, specialUse, false); err != nil {
		return err
	}
	if a.store != nil {
		a.store.logOp(journalEntry{Op: opCreate, Folder: name, SpecialUse: attrStrings(specialUse), UIDValidity: a.user.UIDValidityCounter()})
	}
	return nil
}

// deleteFolder is IMAP DELETE. INBOX cannot be deleted.
func (a *account) deleteFolder(name string) error {
	if name == inbox {
		return noError(imap.ResponseCodeCannot, "INBOX cannot be deleted")
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	a.foldersMu.Lock()
	defer a.foldersMu.Unlock()
	if err := a.user.Delete(name); err != nil {
		return err
	}
	delete(a.folders, name)
	if a.store != nil {
		a.store.logOp(journalEntry{Op: opDelete, Folder: name})
	}
	a.dirty()
	return nil
}

// renameFolder is IMAP RENAME, inferior folders included. Renaming INBOX
// (which would move its messages into a new folder) is refused.
func (a *account) renameFolder(oldName, newName string) error {
	newName = strings.TrimRight(newName, string(mailboxDelim))
	if oldName == inbox {
		return noError(imap.ResponseCodeCannot, "Renaming INBOX is not supported")
	}
	if newName == "" {
		return noError("", "Invalid mailbox name")
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	a.foldersMu.Lock()
	defer a.foldersMu.Unlock()
	if a.folders[oldName] != nil && strings.HasPrefix(newName, oldName+string(mailboxDelim)) {
		return noError(imap.ResponseCodeCannot, "Cannot move a folder into itself")
	}
	if err := a.renameLocked(oldName, newName); err != nil {
		return err
	}
	prefix := oldName + string(mailboxDelim)
	for _, name := range a.sortedNamesLocked() {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			if err := a.renameLocked(name, newName+string(mailboxDelim)+rest); err != nil {
				a.log.Warn("devmail: rename inferior folder", "folder", name, "err", err)
			}
		}
	}
	a.dirty()
	return nil
}

func (a *account) renameLocked(oldName, newName string) error {
	if err := a.user.Rename(oldName, newName, nil); err != nil {
		return err
	}
	a.folders[newName] = a.folders[oldName]
	delete(a.folders, oldName)
	if a.store != nil {
		a.store.logOp(journalEntry{Op: opRename, Folder: oldName, NewName: newName})
	}
	return nil
}

// setSubscribed is IMAP SUBSCRIBE and UNSUBSCRIBE.
func (a *account) setSubscribed(name string, on bool) error {
	a.foldersMu.Lock()
	defer a.foldersMu.Unlock()
	var err error
	if on {
		err = a.user.Subscribe(name)
	} else {
		err = a.user.Unsubscribe(name)
	}
	if err != nil {
		return err
	}
	if f := a.folders[name]; f != nil {
		f.subscribed = on
	}
	a.dirty()
	return nil
}

// appendMessage stores raw in the folder. With a store, the message file and
// its journal entry are on disk before it returns.
func (a *account) appendMessage(name string, raw []byte, flags []imap.Flag, date time.Time) (*imap.AppendData, error) {
	if date.IsZero() {
		date = time.Now()
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	var file string
	if a.store != nil {
		var err error
		if file, err = a.store.writeMessage(raw); err != nil {
			return nil, err
		}
	}
	a.foldersMu.Lock()
	defer a.foldersMu.Unlock()
	data, err := a.user.AppendTagged(name, raw, &imap.AppendOptions{Flags: flags, Time: date}, file)
	if err != nil {
		return nil, err
	}
	defer a.changed()
	if a.store == nil {
		return data, nil
	}
	entry := journalEntry{
		Op: opAppend, Folder: name, UIDValidity: data.UIDValidity, UID: data.UID,
		File: file, Flags: flagStrings(flags), Date: date,
	}
	if err := a.store.logAppend(entry); err != nil {
		return nil, err
	}
	return data, nil
}

// status is IMAP STATUS. It fills the items imapmemserver leaves nil, which
// imapserver would otherwise dereference.
func (a *account) status(name string, options *imap.StatusOptions) (*imap.StatusData, error) {
	data, err := a.user.Status(name, options)
	if err != nil {
		return nil, err
	}
	if options.AppendLimit && data.AppendLimit == nil {
		limit := a.appendLimit
		data.AppendLimit = &limit
	}
	if options.DeletedStorage && data.DeletedStorage == nil {
		var zero int64
		data.DeletedStorage = &zero
	}
	return data, nil
}

// sortedNamesLocked lists folder names, INBOX first, then by name.
func (a *account) sortedNamesLocked() []string {
	names := make([]string, 0, len(a.folders))
	for name := range a.folders {
		names = append(names, name)
	}
	slices.SortFunc(names, func(x, y string) int {
		switch {
		case x == inbox:
			return -1
		case y == inbox:
			return 1
		}
		return strings.Compare(x, y)
	})
	return names
}

// changed is called after every change a selected or idling session may
// have to report: it wakes the idlers and asks for a snapshot.
func (a *account) changed() {
	a.notifyMu.Lock()
	if a.notify != nil {
		close(a.notify)
		a.notify = nil
	}
	a.notifyMu.Unlock()
	a.dirty()
}

// changes returns a channel that is closed at the next call of changed.
func (a *account) changes() <-chan struct{} {
	a.notifyMu.Lock()
	defer a.notifyMu.Unlock()
	if a.notify == nil {
		a.notify = make(chan struct{})
	}
	return a.notify
}

// isRecent reports whether f is \Recent, a session flag that is never
// stored (go-imap has no constant for it).
func isRecent(f string) bool { return strings.EqualFold(f, `\Recent`) }

// noError is a tagged NO answer with an optional response code.
func noError(code imap.ResponseCode, text string) *imap.Error {
	return &imap.Error{Type: imap.StatusResponseTypeNo, Code: code, Text: text}
}

func attrStrings(attrs []imap.MailboxAttr) []string {
	out := make([]string, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, string(a))
	}
	return out
}

func flagStrings(flags []imap.Flag) []string {
	out := make([]string, 0, len(flags))
	for _, f := range flags {
		out = append(out, string(f))
	}
	return out
}
