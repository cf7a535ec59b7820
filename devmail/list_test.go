package devmail_test

import (
	"slices"
	"testing"

	"github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/devmail"
)

// LIST sends the attributes Dovecot 2.3 sends, so that a test that passes
// on internal/mailtest (which runs devmail) passes on Dovecot too: children
// and special-use on a plain LIST, and on an extended one only what its
// RETURN options or selection ask for.
func TestListAttributesAsDovecot(t *testing.T) {
	s := startServer(t, devmail.Options{})
	c := dialIMAP(t, s, nil)
	tests := []struct {
		name    string
		options *imap.ListOptions
		want    []imap.MailboxAttr
	}{
		{"plain", nil, []imap.MailboxAttr{imap.MailboxAttrHasNoChildren, imap.MailboxAttrSent}},
		{"RETURN (SPECIAL-USE)", &imap.ListOptions{ReturnSpecialUse: true}, []imap.MailboxAttr{imap.MailboxAttrSent}},
		{"RETURN (STATUS)", &imap.ListOptions{ReturnStatus: &imap.StatusOptions{NumMessages: true}}, nil},
		{"RETURN (CHILDREN)", &imap.ListOptions{ReturnChildren: true}, []imap.MailboxAttr{imap.MailboxAttrHasNoChildren}},
		{"RETURN (SUBSCRIBED)", &imap.ListOptions{ReturnSubscribed: true}, []imap.MailboxAttr{imap.MailboxAttrSubscribed}},
	}
	for _, tt := range tests {
		boxes, err := c.List("", "Sent", tt.options).Collect()
		if err != nil || len(boxes) != 1 {
			t.Fatalf("List(%s, Sent) = %v, %v; want one folder", tt.name, boxes, err)
		}
		got := slices.Clone(boxes[0].Attrs)
		slices.Sort(got)
		want := slices.Clone(tt.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("List(%s, Sent) attrs = %v, want %v", tt.name, got, want)
		}
	}
}
