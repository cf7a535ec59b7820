package imap

import (
	"context"
	"strings"
)

// TrashNames are the folder names taken for Trash when no folder has the
// \Trash attribute, compared case-insensitively with a name or its last
// component ("INBOX.Trash", "[Gmail]/Trash").
var TrashNames = []string{"Trash", "Deleted Items", "Deleted Messages", "Deleted", "Bin", "Papierkorb"}

// How Trash found the trash folder.
const (
	TrashSpecialUse  = "special_use"  // the folder with \Trash
	TrashByName      = "name"         // a selectable folder named as in TrashNames
	TrashCreated     = "created"      // none existed: Trash created "Trash"
	TrashWouldCreate = "would_create" // none existed, and create was off
)

// Trash returns the trash folder and how it was found: the \Trash
// special-use folder, else one named like TrashNames, else a new "Trash",
// created only when create is set (a dry run creates nothing).
func (c *Client) Trash(ctx context.Context, create bool) (name, how string, err error) {
	folders, err := c.ListFolders(ctx, false)
	if err != nil {
		return "", "", err
	}
	if name, how, ok := trashOf(folders); ok {
		return name, how, nil
	}
	if !create {
		return "Trash", TrashWouldCreate, nil
	}
	if err := c.CreateFolder(ctx, "Trash"); err != nil {
		return "", "", err
	}
	return "Trash", TrashCreated, nil
}

// trashOf picks the trash folder among folders, when one is.
func trashOf(folders []Folder) (name, how string, ok bool) {
	for _, f := range folders {
		if strings.EqualFold(f.SpecialUse, `\Trash`) {
			return f.Name, TrashSpecialUse, true
		}
	}
	for _, want := range TrashNames {
		for _, f := range folders {
			last := f.Name
			if f.Delimiter != "" {
				last = last[strings.LastIndex(last, f.Delimiter)+1:]
			}
			if strings.EqualFold(last, want) && f.Selectable() {
				return f.Name, TrashByName, true
			}
		}
	}
	return "", "", false
}
