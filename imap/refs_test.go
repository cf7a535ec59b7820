package imap_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/email-mcp/email-mcp/imap"
)

// validity is a mailbox whose folder has UIDVALIDITY 7, counting asks.
type validity struct{ asked int }

func (v *validity) UIDValidity(context.Context, string) (uint32, error) {
	v.asked++
	return 7, nil
}

func TestRefUIDs(t *testing.T) {
	v := &validity{}
	uids, err := imap.RefUIDs(context.Background(), v, "INBOX", []imap.Ref{{UID: 3}, {UID: 1}, {UID: 3}})
	if err != nil || !slices.Equal(uids, []uint32{3, 1}) || v.asked != 0 {
		t.Errorf("RefUIDs(plain) = %v, %v (asked %d), want [3 1] without a round trip", uids, err, v.asked)
	}
	uids, err = imap.RefUIDs(context.Background(), v, "INBOX", []imap.Ref{{UID: 2, Validity: 7}, {UID: 5}})
	if err != nil || !slices.Equal(uids, []uint32{2, 5}) || v.asked != 1 {
		t.Errorf("RefUIDs(ids of this UIDVALIDITY) = %v, %v (asked %d), want [2 5] after one ask", uids, err, v.asked)
	}
	if _, err := imap.RefUIDs(context.Background(), v, "INBOX", []imap.Ref{{UID: 2}, {UID: 4, Validity: 8}}); !errors.Is(err, imap.ErrUIDValidityChanged) {
		t.Errorf("RefUIDs(an id of another UIDVALIDITY) = %v, want ErrUIDValidityChanged", err)
	}
}
