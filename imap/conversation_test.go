package imap_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/imap"
)

// threadMail is message i of a conversation: it references every message
// before it and is dated i minutes after 10:00.
func threadMail(i int) string {
	refs := ""
	for j := range i {
		refs += fmt.Sprintf(" <t%d@example.test>", j)
	}
	raw := fmt.Sprintf("From: p%d@example.test\r\nSubject: topic\r\nMessage-ID: <t%d@example.test>\r\nDate: Mon, 01 Jan 2024 10:%02d:00 +0000\r\n", i%2, i, i)
	if refs != "" {
		raw += "References:" + refs + "\r\n"
	}
	return raw + fmt.Sprintf("\r\n> quoted\r\nmessage %d\r\n", i)
}

// TestThread: a conversation across INBOX and the \Sent folder, oldest
// first, one copy per Message-ID (the one of the earliest folder), the
// newest Limit of them with their text; a stale UIDVALIDITY is refused.
func TestThread(t *testing.T) {
	ts := newTestServer(t, modePlain, capsFull)
	ts.addFolder(t, "Sent", goimap.MailboxAttrSent)
	ts.addFolder(t, "Other", "")
	at := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	var uids []uint32
	for i := range 5 {
		uids = append(uids, ts.deliver(t, []string{"INBOX", "Sent"}[i%2], threadMail(i), at))
	}
	ts.deliver(t, "Sent", threadMail(0), at)  // a copy of the first: the one of the folder asked is kept
	ts.deliver(t, "Other", threadMail(9), at) // not searched
	ts.deliver(t, "INBOX", "From: x@example.test\r\nSubject: other\r\nMessage-ID: <x@example.test>\r\n\r\nnot of it\r\n", at)
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	ctx := context.Background()
	th, err := c.Thread(ctx, "INBOX", uids[2], imap.ThreadOptions{Limit: 3})
	if err != nil {
		t.Fatalf("Thread() = %v", err)
	}
	var got []string
	for _, m := range th.Messages {
		got = append(got, fmt.Sprintf("%s %s %q", m.Folder, m.Header.MessageID, m.Text))
	}
	want := []string{
		`INBOX t2@example.test "> quoted\nmessage 2"`, `Sent t3@example.test "> quoted\nmessage 3"`, `INBOX t4@example.test "> quoted\nmessage 4"`,
	}
	if th.Total != 5 || th.Omitted != 2 || th.Incomplete || !slices.Equal(th.Folders, []string{"INBOX", "Sent"}) || !slices.Equal(got, want) {
		t.Errorf("Thread() = total %d, omitted %d, incomplete %v, folders %q, messages %q; want 5, 2, false, [INBOX Sent], %q",
			th.Total, th.Omitted, th.Incomplete, th.Folders, got, want)
	}
	all, err := c.Thread(ctx, "Sent", uids[1], imap.ThreadOptions{})
	if err != nil || all.Total != 5 || len(all.Messages) != 5 || all.Messages[0].Folder != "Sent" || !slices.Equal(all.Folders, []string{"Sent", "INBOX"}) {
		t.Errorf("Thread(from Sent, no limit) = %+v, %v; want 5 messages, the first Sent's copy", all, err)
	}
	_, err = c.Thread(ctx, "INBOX", uids[0], imap.ThreadOptions{UIDValidity: th.Messages[0].UIDValidity + 1})
	if !errors.Is(err, imap.ErrUIDValidityChanged) {
		t.Errorf("Thread(stale UIDVALIDITY) = %v, want ErrUIDValidityChanged", err)
	}
	if _, err := c.Thread(ctx, "INBOX", 999, imap.ThreadOptions{}); !errors.Is(err, imap.ErrMessageNotFound) {
		t.Errorf("Thread(uid 999) = %v, want ErrMessageNotFound", err)
	}
}
