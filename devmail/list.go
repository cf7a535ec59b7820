package devmail

import (
	"strings"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
)

// list is IMAP LIST (plain, LIST-EXTENDED, LIST-STATUS) and LSUB, built on
// the folder registry because imapmemserver does not report special-use
// attributes. The attributes are those Dovecot 2.3 sends (so that tests on
// internal/mailtest, which runs this server, hold on Dovecot too): a plain
// LIST has \HasChildren/\HasNoChildren and the special-use attributes; an
// extended one has children only with RETURN (CHILDREN), special-use only
// with RETURN (SPECIAL-USE) or the SPECIAL-USE selection, \Subscribed only
// with RETURN (SUBSCRIBED) or the SUBSCRIBED selection.
func (a *account) list(w *imapserver.ListWriter, ref string, patterns []string, options *imap.ListOptions) error {
	if len(patterns) == 0 {
		// LIST "" "": the hierarchy delimiter and root.
		return w.WriteList(&imap.ListData{Attrs: []imap.MailboxAttr{imap.MailboxAttrNoSelect}, Delim: mailboxDelim})
	}
	entries := a.listEntries(ref, patterns, options)
	for i := range entries {
		data := &entries[i]
		if options.ReturnStatus != nil {
			// A folder deleted since the listing gets no STATUS line.
			if st, err := a.status(data.Mailbox, options.ReturnStatus); err == nil {
				data.Status = st
			}
		}
		if err := w.WriteList(data); err != nil {
			return err
		}
	}
	return nil
}

// listEntries selects and describes the folders that match.
func (a *account) listEntries(ref string, patterns []string, options *imap.ListOptions) []imap.ListData {
	a.foldersMu.Lock()
	defer a.foldersMu.Unlock()
	names := a.sortedNamesLocked()
	var out []imap.ListData
	for _, name := range names {
		if !matchAny(name, ref, patterns) {
			continue
		}
		f := a.folders[name]
		if options.SelectSubscribed && !f.subscribed {
			continue
		}
		if options.SelectSpecialUse && len(f.specialUse) == 0 {
			continue
		}
		out = append(out, imap.ListData{
			Mailbox: name,
			Delim:   mailboxDelim,
			Attrs:   a.attrsLocked(name, f, names, options),
		})
	}
	return out
}

func (a *account) attrsLocked(name string, f *folder, names []string, options *imap.ListOptions) []imap.MailboxAttr {
	plain := *options == imap.ListOptions{}
	var attrs []imap.MailboxAttr
	switch {
	case !plain && !options.ReturnChildren:
	case hasChildren(name, names):
		attrs = append(attrs, imap.MailboxAttrHasChildren)
	default:
		attrs = append(attrs, imap.MailboxAttrHasNoChildren)
	}
	if f.subscribed && (options.ReturnSubscribed || options.SelectSubscribed) {
		attrs = append(attrs, imap.MailboxAttrSubscribed)
	}
	if plain || options.ReturnSpecialUse || options.SelectSpecialUse {
		attrs = append(attrs, f.specialUse...)
	}
	return attrs
}

func matchAny(name, ref string, patterns []string) bool {
	for _, pattern := range patterns {
		if imapserver.MatchList(name, mailboxDelim, ref, pattern) {
			return true
		}
		// INBOX is case-insensitive (RFC 3501 section 5.1).
		if name == inbox && strings.EqualFold(pattern, inbox) && ref == "" {
			return true
		}
	}
	return false
}

func hasChildren(name string, names []string) bool {
	prefix := name + string(mailboxDelim)
	for _, other := range names {
		if strings.HasPrefix(other, prefix) {
			return true
		}
	}
	return false
}
