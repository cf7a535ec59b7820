package imap_test

import (
	"context"
	"strings"
	"testing"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// TestRecordsAndRemove: Records lists a folder's messages by UID with
// their INTERNALDATE (and bytes when asked), finds them by a header, and
// sees a message another session stored after the pool's connection last
// looked (Dovecot answers a kept selection from its old view otherwise).
// Remove expunges the UIDs given and leaves another message marked
// \Deleted alone.
func TestRecordsAndRemove(t *testing.T) {
	acct := mailtest.NewAccount(t)
	folder := acct.Folder("records")
	acct.CreateFolder(t, folder)
	rec := func(k string) []byte {
		return []byte("From: a@example.test\r\nSubject: record\r\nX-Key: " + k + "\r\n\r\nbody " + k + "\r\n")
	}
	u1 := acct.Append(t, folder, rec("one"))
	other := acct.Append(t, folder, rec("other"), `\Deleted`)
	c := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password, Security: imap.SecurityPlain, PoolSize: 1})
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	got, err := c.Records(ctx, folder, imap.RecordQuery{})
	if err != nil || len(got) != 1 || got[0].UID != u1 || got[0].Date.IsZero() || got[0].Raw != nil {
		t.Fatalf("Records(all) = %+v, %v; want UID %d alone (not the \\Deleted one), with a date, no bytes", got, err, u1)
	}
	u2 := acct.Append(t, folder, rec("two"))
	got, err = c.Records(ctx, folder, imap.RecordQuery{})
	if err != nil || len(got) != 2 || got[0].UID != u1 || got[1].UID != u2 {
		t.Fatalf("Records(all) after another session's APPEND = %+v, %v; want UIDs %d, %d", got, err, u1, u2)
	}
	got, err = c.Records(ctx, folder, imap.RecordQuery{Header: "X-Key", Value: "two", Raw: true})
	if err != nil || len(got) != 1 || got[0].UID != u2 || !strings.Contains(string(got[0].Raw), "body two") {
		t.Fatalf("Records(X-Key two) = %+v, %v; want UID %d with its bytes", got, err, u2)
	}
	if err := c.Remove(ctx, folder, []uint32{u1, u2}); err != nil {
		t.Fatalf("Remove() = %v", err)
	}
	ic := acct.Client(t)
	if _, err := ic.Select(folder, nil).Wait(); err != nil {
		t.Fatal(err)
	}
	left, err := ic.UIDSearch(&goimap.SearchCriteria{}, nil).Wait()
	if err != nil || len(left.AllUIDs()) != 1 || uint32(left.AllUIDs()[0]) != other {
		t.Errorf("after Remove the folder holds %v (%v), want only the other \\Deleted message %d", left.AllUIDs(), err, other)
	}
	if err := c.Remove(ctx, folder, []uint32{u1}); err != nil {
		t.Errorf("Remove() of a UID already gone = %v, want nil", err)
	}
	if err := c.Remove(ctx, folder, []uint32{0}); err == nil {
		t.Error("Remove(UID 0) = nil, want ErrInvalid")
	}
}
