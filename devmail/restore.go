package devmail

import (
	"bytes"
	"context"
	"slices"
	"strings"

	"github.com/emersion/go-imap/v2"
)

// restore loads a stored state into imapmemserver: UIDVALIDITY first moves
// past every value used before, then each folder and its messages are
// created in order. A message file that is missing or does not match its
// hash is skipped with a warning (and left on disk).
func (a *account) restore(ctx context.Context, st *stateFile) error {
	if err := a.skipUIDValidity(st.UIDValidity); err != nil {
		return err
	}
	for _, f := range st.Folders {
		if err := ctx.Err(); err != nil {
			return err
		}
		a.restoreFolder(f)
	}
	return nil
}

func (a *account) restoreFolder(f folderState) {
	name := strings.TrimRight(f.Name, string(mailboxDelim))
	a.foldersMu.Lock()
	defer a.foldersMu.Unlock()
	if name == "" {
		a.log.Warn("devmail: skipping a stored folder without a name", "messages", len(f.Messages))
		return
	}
	if a.folders[name] == nil {
		if err := a.createLocked(name, parseAttrs(f.SpecialUse), f.Subscribed || name == inbox); err != nil {
			a.log.Warn("devmail: cannot restore folder", "folder", name, "err", err)
			return
		}
	}
	for _, m := range f.Messages {
		raw, err := a.store.readMessage(m.File)
		if err != nil {
			a.log.Warn("devmail: skipping unreadable message file", "folder", name, "file", m.File, "err", err)
			continue
		}
		opts := &imap.AppendOptions{Flags: parseFlags(m.Flags), Time: m.Date}
		data, err := a.user.Append(name, bytes.NewReader(raw), opts)
		if err != nil {
			a.log.Warn("devmail: cannot restore message", "folder", name, "file", m.File, "err", err)
			continue
		}
		a.store.remember(msgKey{data.UIDValidity, data.UID}, msgRef{file: m.File, date: m.Date, size: int64(len(raw))})
	}
}

// folderStates describes every folder (without messages) for a snapshot,
// with the last UIDVALIDITY handed out.
func (a *account) folderStates() ([]folderState, uint32) {
	a.foldersMu.Lock()
	defer a.foldersMu.Unlock()
	names := a.sortedNamesLocked()
	out := make([]folderState, 0, len(names))
	for _, name := range names {
		f := a.folders[name]
		out = append(out, folderState{Name: name, SpecialUse: attrStrings(f.specialUse), Subscribed: f.subscribed})
	}
	return out, a.lastUIDValidity
}

// parseAttrs keeps the special-use attributes it knows.
func parseAttrs(in []string) []imap.MailboxAttr {
	var out []imap.MailboxAttr
	for _, s := range in {
		i := slices.IndexFunc(specialUseAttrs, func(a imap.MailboxAttr) bool { return strings.EqualFold(string(a), s) })
		if i >= 0 {
			out = append(out, specialUseAttrs[i])
		}
	}
	return out
}

// parseFlags keeps the flags that are valid on the wire: a system flag or a
// keyword made of atom characters. \Recent is never stored.
func parseFlags(in []string) []imap.Flag {
	var out []imap.Flag
	for _, s := range in {
		if validFlag(s) && !isRecent(s) {
			out = append(out, imap.Flag(s))
		}
	}
	return out
}

func validFlag(s string) bool {
	s = strings.TrimPrefix(s, `\`)
	if s == "" {
		return false
	}
	for _, c := range s {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune(`(){%*"\]`, c) {
			return false
		}
	}
	return true
}
