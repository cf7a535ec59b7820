package mailtest

import (
	"strings"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
)

// List is LIST (with LIST-EXTENDED selection and RETURN options) and LSUB,
// with the attributes Dovecot 2.3 sends: a plain LIST has
// \HasChildren/\HasNoChildren and the special-use attributes; an extended
// one has children only with RETURN (CHILDREN), special-use only with
// RETURN (SPECIAL-USE) or the SPECIAL-USE selection, \Subscribed only with
// RETURN (SUBSCRIBED) or the SUBSCRIBED selection (which LSUB is here). A
// parent that exists only through its children is \Noselect.
func (s *session) List(w *imapserver.ListWriter, ref string, patterns []string, options *imap.ListOptions) error {
	if len(patterns) == 0 {
		// LIST "" "": the hierarchy delimiter.
		return w.WriteList(&imap.ListData{Attrs: []imap.MailboxAttr{imap.MailboxAttrNoSelect}, Delim: delim})
	}
	for _, data := range s.srv.listEntries(ref, patterns, options) {
		if options.ReturnStatus != nil && !hasAttr(data.Attrs, imap.MailboxAttrNoSelect) {
			// A folder deleted since the listing gets no STATUS.
			if st, err := s.srv.user.Status(data.Mailbox, options.ReturnStatus); err == nil {
				data.Status = st
			}
		}
		if err := w.WriteList(&data); err != nil {
			return err
		}
	}
	return nil
}

// listEntries selects and describes the folders that match.
func (s *memServer) listEntries(ref string, patterns []string, options *imap.ListOptions) []imap.ListData {
	s.mu.Lock()
	defer s.mu.Unlock()
	names, implied := s.sortedNamesLocked()
	var out []imap.ListData
	for _, name := range names {
		if !matchAny(name, ref, patterns) {
			continue
		}
		meta := s.folders[name]
		if meta == nil {
			meta = &folderMeta{}
		}
		if (options.SelectSubscribed && !meta.subscribed) || (options.SelectSpecialUse && len(meta.use) == 0) {
			continue
		}
		attrs := listAttrs(meta, implied[name], hasChildren(name, names), options)
		out = append(out, imap.ListData{Mailbox: name, Delim: delim, Attrs: attrs})
	}
	return out
}

// listAttrs returns the attributes of one LIST line.
func listAttrs(meta *folderMeta, noselect, children bool, options *imap.ListOptions) []imap.MailboxAttr {
	plain := *options == imap.ListOptions{}
	var attrs []imap.MailboxAttr
	if noselect {
		attrs = append(attrs, imap.MailboxAttrNoSelect)
	}
	switch {
	case !plain && !options.ReturnChildren:
	case children:
		attrs = append(attrs, imap.MailboxAttrHasChildren)
	default:
		attrs = append(attrs, imap.MailboxAttrHasNoChildren)
	}
	if meta.subscribed && (options.ReturnSubscribed || options.SelectSubscribed) {
		attrs = append(attrs, imap.MailboxAttrSubscribed)
	}
	if plain || options.ReturnSpecialUse || options.SelectSpecialUse {
		attrs = append(attrs, meta.use...)
	}
	return attrs
}

// matchAny reports whether name matches one of the LIST patterns; INBOX
// matches in any case (RFC 3501 section 5.1).
func matchAny(name, ref string, patterns []string) bool {
	for _, pattern := range patterns {
		if imapserver.MatchList(name, delim, ref, pattern) {
			return true
		}
		if name == inbox && ref == "" && strings.EqualFold(pattern, inbox) {
			return true
		}
	}
	return false
}

func hasChildren(name string, names []string) bool {
	prefix := name + string(delim)
	for _, other := range names {
		if strings.HasPrefix(other, prefix) {
			return true
		}
	}
	return false
}

func hasAttr(attrs []imap.MailboxAttr, want imap.MailboxAttr) bool {
	for _, a := range attrs {
		if strings.EqualFold(string(a), string(want)) {
			return true
		}
	}
	return false
}
