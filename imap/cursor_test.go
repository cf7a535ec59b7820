package imap_test

import (
	"errors"
	"testing"

	"github.com/email-mcp/email-mcp/imap"
)

// TestPager: a cursor written by Next gives back the page it names, for
// the same search only; anything else is a *CursorError.
func TestPager(t *testing.T) {
	unread := true
	crit := imap.SearchCriteria{Unread: &unread}
	first, err := imap.NewPager("", "INBOX", crit, 10)
	if err != nil || first.Req != (imap.PageRequest{Limit: 10}) {
		t.Fatalf("NewPager(\"\") = %+v, %v, want the first page", first.Req, err)
	}
	if c := first.Next(&imap.SearchResult{UIDValidity: 7}); c != nil {
		t.Fatalf("Next(last page) = %q, want nil", *c)
	}
	c := first.Next(&imap.SearchResult{UIDValidity: 7, NextBeforeUID: 42})
	if c == nil {
		t.Fatal("Next() = nil, want a cursor")
	}
	again := true // another pointer, the same criteria
	second, err := imap.NewPager(*c, "INBOX", imap.SearchCriteria{Unread: &again}, 10)
	if err != nil || second.Req != (imap.PageRequest{Limit: 10, BeforeUID: 42, UIDValidity: 7}) {
		t.Fatalf("NewPager(cursor) = %+v, %v, want the page below 42 of UIDVALIDITY 7", second.Req, err)
	}
	var ce *imap.CursorError
	if _, err := imap.NewPager(*c, "Archive", crit, 10); !errors.As(err, &ce) || !ce.Foreign {
		t.Errorf("NewPager(cursor, other folder) = %v, want a foreign *CursorError", err)
	}
	for _, bad := range []string{"x", "AAAA", *c + "A"} {
		if _, err := imap.NewPager(bad, "INBOX", crit, 10); !errors.As(err, &ce) || ce.Foreign {
			t.Errorf("NewPager(%q) = %v, want a *CursorError", bad, err)
		}
	}
}
