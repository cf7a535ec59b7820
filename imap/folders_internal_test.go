package imap

import (
	"slices"
	"testing"

	goimap "github.com/emersion/go-imap/v2"
)

// TestFlagStrings: system flags in RFC 3501's case, keywords as given, and
// \Recent (session state, seen by one connection only) left out.
func TestFlagStrings(t *testing.T) {
	got := flagStrings([]goimap.Flag{`\seen`, `\RECENT`, `\Recent`, `$Forwarded`, `\Flagged`, `Work`})
	want := []string{`\Seen`, `$Forwarded`, `\Flagged`, `Work`}
	if !slices.Equal(got, want) {
		t.Errorf("flagStrings() = %q, want %q", got, want)
	}
}

// TestSortFolders: INBOX first, then by name, whatever the server's order.
func TestSortFolders(t *testing.T) {
	l := []Folder{{Name: "Trash"}, {Name: "Archive"}, {Name: "Sent"}, {Name: "INBOX"}, {Name: "Archive/2024"}}
	sortFolders(l)
	var got []string
	for _, f := range l {
		got = append(got, f.Name)
	}
	if want := []string{"INBOX", "Archive", "Archive/2024", "Sent", "Trash"}; !slices.Equal(got, want) {
		t.Errorf("sortFolders() = %q, want %q", got, want)
	}
}

// TestTrashOf: the \Trash folder first, else a selectable folder named as
// trash (by its last component), else none.
func TestTrashOf(t *testing.T) {
	cases := []struct {
		folders []Folder
		name    string
		how     string
		found   bool
		why     string
	}{
		{[]Folder{{Name: "Bin"}, {Name: "Junk/Gelöscht", SpecialUse: `\Trash`}}, "Junk/Gelöscht", TrashSpecialUse, true, "special use wins over a name"},
		{[]Folder{{Name: "INBOX.Deleted Items", Delimiter: "."}}, "INBOX.Deleted Items", TrashByName, true, "last component"},
		{[]Folder{{Name: "Trash", Flags: []string{`\Noselect`}}, {Name: "Bin"}}, "Bin", TrashByName, true, "a \\Noselect Trash is no trash"},
		{[]Folder{{Name: "Archive"}}, "", "", false, "none"},
	}
	for _, tc := range cases {
		name, how, found := trashOf(tc.folders)
		if name != tc.name || how != tc.how || found != tc.found {
			t.Errorf("%s: trashOf() = %q, %q, %v; want %q, %q, %v", tc.why, name, how, found, tc.name, tc.how, tc.found)
		}
	}
}
