package imap

import (
	"context"
	"errors"
	"slices"
	"strings"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// Folder is one mailbox as LIST reports it.
type Folder struct {
	Name       string   // UTF-8 (modified UTF-7 is decoded)
	Delimiter  string   // hierarchy delimiter: "/" or "."; "" when the server has none (NIL)
	Flags      []string // every attribute as sent, e.g. `\HasNoChildren`, `\Sent`
	SpecialUse string   // `\Sent`, `\Drafts`, `\Trash`, `\Junk`, `\Archive`, `\All`, `\Flagged` or ""
	// Messages and Unseen are set when counts were asked for and the folder
	// can be selected (not \Noselect).
	Messages, Unseen *uint32
}

// specialUses are the RFC 6154 attributes Folder.SpecialUse reports.
var specialUses = []goimap.MailboxAttr{
	goimap.MailboxAttrSent, goimap.MailboxAttrDrafts, goimap.MailboxAttrTrash,
	goimap.MailboxAttrJunk, goimap.MailboxAttrArchive, goimap.MailboxAttrAll,
	goimap.MailboxAttrFlagged,
}

// statusCounts are the counts list_folders reports.
var statusCounts = &goimap.StatusOptions{NumMessages: true, NumUnseen: true}

// ListFolders lists every folder. With counts it also returns the number of
// messages and unseen messages of each: in the LIST itself when the server
// has LIST-STATUS, else with one STATUS per selectable folder (pipelined).
func (c *Client) ListFolders(ctx context.Context, counts bool) ([]Folder, error) {
	var folders []Folder
	err := c.do(ctx, "list folders", func(cn *conn) error {
		var err error
		folders, err = listFolders(cn, counts)
		return err
	})
	if err != nil {
		return nil, err
	}
	return folders, nil
}

func listFolders(cn *conn, counts bool) ([]Folder, error) {
	opts := listOptions(cn.caps, counts)
	data, err := cn.ic.List("", "*", opts).Collect()
	if err != nil {
		return nil, err
	}
	folders := make([]Folder, 0, len(data))
	for _, d := range data {
		folders = append(folders, folderFrom(d))
	}
	sortFolders(folders)
	if counts && (opts == nil || opts.ReturnStatus == nil) {
		if err := statusEach(cn.ic, folders); err != nil {
			return nil, err
		}
	}
	return folders, nil
}

// listOptions asks for RETURN options only where the server announced them:
// imapclient sends whatever it is given, and a server without LIST-EXTENDED
// answers BAD. Without them most servers still send special-use attributes.
func listOptions(caps goimap.CapSet, counts bool) *goimap.ListOptions {
	var o goimap.ListOptions
	if counts && caps.Has(goimap.CapListStatus) {
		o.ReturnStatus = statusCounts
	}
	extended := caps.Has(goimap.CapListExtended) || caps.Has(goimap.CapListStatus)
	if extended && (caps.Has(goimap.CapSpecialUse) || caps.Has(goimap.CapIMAP4rev2)) {
		o.ReturnSpecialUse = true
	}
	if o == (goimap.ListOptions{}) {
		return nil
	}
	return &o
}

// folderFrom converts one LIST answer.
func folderFrom(d *goimap.ListData) Folder {
	f := Folder{Name: d.Mailbox, Flags: make([]string, 0, len(d.Attrs))}
	if d.Delim != 0 {
		f.Delimiter = string(d.Delim)
	}
	for _, a := range d.Attrs {
		f.Flags = append(f.Flags, string(a))
		for _, su := range specialUses {
			if f.SpecialUse == "" && strings.EqualFold(string(a), string(su)) {
				f.SpecialUse = string(su)
			}
		}
	}
	if d.Status != nil {
		f.Messages, f.Unseen = d.Status.NumMessages, d.Status.NumUnseen
	}
	return f
}

// Selectable reports whether the folder can hold messages (and be asked
// for STATUS): it is neither \Noselect nor \NonExistent.
func (f *Folder) Selectable() bool {
	for _, a := range f.Flags {
		if strings.EqualFold(a, string(goimap.MailboxAttrNoSelect)) ||
			strings.EqualFold(a, string(goimap.MailboxAttrNonExistent)) {
			return false
		}
	}
	return true
}

// statusEach fills the counts with one STATUS per selectable folder, all
// sent before the first answer is awaited. A folder that answers NO (it
// vanished since the LIST) keeps nil counts; any other failure aborts.
func statusEach(ic *imapclient.Client, folders []Folder) error {
	type pending struct {
		f   *Folder
		cmd *imapclient.StatusCommand
	}
	var cmds []pending
	for i := range folders {
		if f := &folders[i]; f.Selectable() {
			cmds = append(cmds, pending{f, ic.Status(f.Name, statusCounts)})
		}
	}
	var failed error
	for _, p := range cmds {
		sd, err := p.cmd.Wait() // wait for all, so none is left pending
		var ie *goimap.Error
		switch {
		case err == nil:
			p.f.Messages, p.f.Unseen = sd.NumMessages, sd.NumUnseen
		case errors.As(err, &ie) && ie.Type == goimap.StatusResponseTypeNo:
		default:
			if failed == nil {
				failed = err
			}
		}
	}
	return failed
}

// Noop sends a NOOP through the pool: a cheap check that the server
// answers with these credentials (/ready).
func (c *Client) Noop(ctx context.Context) error {
	return c.do(ctx, "noop", func(cn *conn) error {
		return cn.ic.Noop().Wait()
	})
}

// FindSpecialUse returns the name of the first folder with the RFC 6154
// attribute use (`\Sent`, `\Drafts`, `\Trash`...; the backslash may be
// left out), from one LIST. It returns "" and nil when no folder has it:
// guessing from names ("Sent Items") is left to the caller.
func (c *Client) FindSpecialUse(ctx context.Context, use string) (string, error) {
	use = `\` + strings.TrimPrefix(use, `\`)
	folders, err := c.ListFolders(ctx, false)
	if err != nil {
		return "", err
	}
	for _, f := range folders {
		if f.SpecialUse != "" && strings.EqualFold(f.SpecialUse, use) {
			return f.Name, nil
		}
	}
	return "", nil
}

// sortFolders puts INBOX first and the others in name order (byte order of
// the decoded names), whatever order the server listed them in: Dovecot
// lists INBOX last, the sandbox first.
func sortFolders(folders []Folder) {
	slices.SortStableFunc(folders, func(a, b Folder) int {
		ai, bi := strings.EqualFold(a.Name, "INBOX"), strings.EqualFold(b.Name, "INBOX")
		switch {
		case ai && !bi:
			return -1
		case bi && !ai:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
}
