package devmail

import (
	"context"
	"slices"
	"strings"

	"github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/devmail/internal/memstore"
)

// restore loads a stored state into the memory store: the UIDVALIDITY
// counter first moves past every value used before, then each folder is
// created with its own UIDVALIDITY and UIDNEXT and its messages put back
// under their own UIDs. A folder without a stored UIDVALIDITY (a version 1
// state, a lost one, Recovered) gets a new one. A message file that is
// missing or does not match its hash is skipped with a warning (and left
// on disk).
func (a *account) restore(ctx context.Context, st *stateFile) error {
	a.user.SetUIDValidityCounter(st.UIDValidity)
	for _, f := range st.Folders {
		a.user.SetUIDValidityCounter(f.UIDValidity)
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
		if err := a.createRestoredLocked(name, f); err != nil {
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
		info := memstore.MessageInfo{UID: m.UID, Tag: m.File, Flags: parseFlags(m.Flags), Date: m.Date}
		if _, err := a.user.Restore(name, info, raw); err != nil {
			a.log.Warn("devmail: cannot restore message", "folder", name, "file", m.File, "err", err)
		}
	}
}

// createRestoredLocked creates a stored folder, with its UIDVALIDITY when
// it has one; the caller holds foldersMu.
func (a *account) createRestoredLocked(name string, f folderState) error {
	// Only a damaged state can give two folders one UIDVALIDITY.
	if f.UIDValidity == 0 || a.user.HasUIDValidity(f.UIDValidity) {
		return a.createLocked(name, parseAttrs(f.SpecialUse), f.Subscribed || name == inbox)
	}
	if err := a.user.CreateRestored(name, f.UIDValidity, f.UIDNext); err != nil {
		return err
	}
	return a.registerLocked(name, parseAttrs(f.SpecialUse), f.Subscribed || name == inbox)
}

// folderStates describes every folder with its messages for a snapshot,
// and the last UIDVALIDITY handed out.
func (a *account) folderStates() ([]folderState, uint32) {
	a.foldersMu.Lock()
	defer a.foldersMu.Unlock()
	boxes := a.user.Snapshot()
	byName := make(map[string]memstore.MailboxInfo, len(boxes))
	for _, b := range boxes {
		byName[b.Name] = b
	}
	names := a.sortedNamesLocked()
	out := make([]folderState, 0, len(names))
	for _, name := range names {
		f, b := a.folders[name], byName[name]
		fs := folderState{
			Name: name, SpecialUse: attrStrings(f.specialUse), Subscribed: f.subscribed,
			UIDValidity: b.UIDValidity, UIDNext: b.UIDNext, Messages: make([]messageState, 0, len(b.Messages)),
		}
		for _, m := range b.Messages {
			fs.Messages = append(fs.Messages, messageState{UID: m.UID, File: m.Tag, Flags: flagStrings(m.Flags), Date: m.Date})
		}
		out = append(out, fs)
	}
	return out, a.user.UIDValidityCounter()
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
