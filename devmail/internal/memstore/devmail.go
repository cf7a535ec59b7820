package memstore

// This file holds what devmail adds to upstream's imapmemserver.

import (
	"fmt"
	"sort"
	"time"

	"github.com/emersion/go-imap/v2"
)

// MessageInfo describes one stored message: what a snapshot needs to
// restore it with the same UID.
type MessageInfo struct {
	UID   imap.UID
	Tag   string // the name the caller gave its bytes (AppendTagged, Restore)
	Flags []imap.Flag
	Date  time.Time // internal date
	Size  int64
}

// MailboxInfo describes one mailbox and its messages, in UID order.
type MailboxInfo struct {
	Name        string
	UIDValidity uint32
	UIDNext     imap.UID
	Messages    []MessageInfo
}

// Change is a structural change that APPEND does not cover, reported to
// the observer while the changed mailbox is locked: messages copied into
// Dest (COPY, MOVE), messages expunged from Source (EXPUNGE, MOVE). A MOVE
// is one Change with both halves.
type Change struct {
	Dest            string
	DestUIDValidity uint32
	Added           []MessageInfo

	Source            string
	SourceUIDValidity uint32
	Expunged          []imap.UID
}

// SetObserver makes f receive every Change. Call it before the first
// Create: mailboxes take the observer they see when they are created.
func (u *User) SetObserver(f func(Change)) {
	u.mutex.Lock()
	u.observe = f
	u.mutex.Unlock()
}

// UIDValidityCounter is the last UIDVALIDITY handed out by Create.
func (u *User) UIDValidityCounter() uint32 {
	u.mutex.Lock()
	defer u.mutex.Unlock()
	return u.prevUidValidity
}

// SetUIDValidityCounter moves the UIDVALIDITY counter to v if it is
// behind: the next Create takes v+1. It never moves the counter back.
func (u *User) SetUIDValidityCounter(v uint32) {
	u.mutex.Lock()
	u.prevUidValidity = max(u.prevUidValidity, v)
	u.mutex.Unlock()
}

// HasUIDValidity reports whether a mailbox has this UIDVALIDITY.
func (u *User) HasUIDValidity(v uint32) bool {
	u.mutex.Lock()
	defer u.mutex.Unlock()
	for _, mbox := range u.mailboxes {
		if mbox.uidValidity == v {
			return true
		}
	}
	return false
}

// CreateRestored creates a mailbox with a stored UIDVALIDITY and UIDNEXT
// (at least 1). The counter moves past uidValidity.
func (u *User) CreateRestored(name string, uidValidity uint32, uidNext imap.UID) error {
	if uidValidity == 0 {
		return fmt.Errorf("restore %q: UIDVALIDITY 0", name)
	}
	u.mutex.Lock()
	defer u.mutex.Unlock()
	if u.mailboxes[name] != nil {
		return &imap.Error{Type: imap.StatusResponseTypeNo, Code: imap.ResponseCodeAlreadyExists, Text: "Mailbox already exists"}
	}
	mbox := NewMailbox(name, uidValidity)
	mbox.uidNext = max(uidNext, 1)
	mbox.observe = u.observe
	u.mailboxes[name] = mbox
	u.prevUidValidity = max(u.prevUidValidity, uidValidity)
	return nil
}

// Restore puts a stored message back under its own UID, which must be
// above every UID the mailbox holds; UID 0 takes the next one. UIDNEXT
// moves past it.
func (u *User) Restore(name string, m MessageInfo, buf []byte) (imap.UID, error) {
	mbox, err := u.mailbox(name)
	if err != nil {
		return 0, err
	}
	mbox.mutex.Lock()
	defer mbox.mutex.Unlock()
	if m.UID == 0 {
		m.UID = mbox.uidNext
	}
	if n := len(mbox.l); n > 0 && mbox.l[n-1].uid >= m.UID {
		return 0, fmt.Errorf("restore %q: UID %d is not above UID %d", name, m.UID, mbox.l[n-1].uid)
	}
	msg := &message{uid: m.UID, buf: buf, t: m.Date, tag: m.Tag, flags: make(map[imap.Flag]struct{})}
	if msg.t.IsZero() {
		msg.t = time.Now()
	}
	for _, f := range m.Flags {
		msg.flags[canonicalFlag(f)] = struct{}{}
	}
	mbox.l = append(mbox.l, msg)
	mbox.uidNext = max(mbox.uidNext, m.UID+1)
	mbox.tracker.QueueNumMessages(uint32(len(mbox.l)))
	return m.UID, nil
}

// AppendTagged is Append of bytes the caller hands over, with a tag that the message keeps (through COPY
// and MOVE too) and that snapshots report.
func (u *User) AppendTagged(name string, buf []byte, options *imap.AppendOptions, tag string) (*imap.AppendData, error) {
	mbox, err := u.mailbox(name)
	if err != nil {
		return nil, &imap.Error{Type: imap.StatusResponseTypeNo, Code: imap.ResponseCodeTryCreate, Text: "No such mailbox"}
	}
	return mbox.appendBytesTagged(buf, options, tag), nil
}

// Snapshot describes every mailbox, sorted by name, with its messages.
func (u *User) Snapshot() []MailboxInfo {
	u.mutex.Lock()
	defer u.mutex.Unlock()
	out := make([]MailboxInfo, 0, len(u.mailboxes))
	for _, mbox := range u.mailboxes {
		mbox.mutex.Lock()
		info := MailboxInfo{Name: mbox.name, UIDValidity: mbox.uidValidity, UIDNext: mbox.uidNext}
		info.Messages = make([]MessageInfo, 0, len(mbox.l))
		for _, msg := range mbox.l {
			info.Messages = append(info.Messages, msg.info(msg.uid))
		}
		mbox.mutex.Unlock()
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// info describes msg as it is (or will be) stored under uid.
func (msg *message) info(uid imap.UID) MessageInfo {
	flags := msg.flagList()
	sort.Slice(flags, func(i, j int) bool { return flags[i] < flags[j] })
	return MessageInfo{UID: uid, Tag: msg.tag, Flags: flags, Date: msg.t, Size: int64(len(msg.buf))}
}

// observeExpungeLocked reports expunged messages (and, for MOVE, their
// copies in another mailbox) to the observer; the caller holds mbox.mutex.
func (mbox *Mailbox) observeExpungeLocked(expunged map[*message]struct{}, moved *Change) {
	if mbox.observe == nil || (len(expunged) == 0 && moved == nil) {
		return
	}
	c := Change{}
	if moved != nil {
		c = *moved
	}
	if len(expunged) > 0 {
		c.Source, c.SourceUIDValidity = mbox.name, mbox.uidValidity
		for msg := range expunged {
			c.Expunged = append(c.Expunged, msg.uid)
		}
		sort.Slice(c.Expunged, func(i, j int) bool { return c.Expunged[i] < c.Expunged[j] })
	}
	if len(c.Added) == 0 && len(c.Expunged) == 0 {
		return
	}
	mbox.observe(c)
}
