package imap

import (
	"testing"

	goimap "github.com/emersion/go-imap/v2"
)

func TestByFlags(t *testing.T) {
	seen := goimap.SearchCriteria{NotFlag: []goimap.Flag{goimap.FlagSeen}}
	from := goimap.SearchCriteria{Header: []goimap.SearchCriteriaHeaderField{{Key: "From", Value: "a"}}}
	for _, tc := range []struct {
		name string
		c    goimap.SearchCriteria
		want bool
	}{
		{"all", goimap.SearchCriteria{}, false},
		{"header", from, false},
		{"unread", seen, true},
		{"flagged", goimap.SearchCriteria{Flag: []goimap.Flag{goimap.FlagFlagged}}, true},
		{"not unread", goimap.SearchCriteria{Not: []goimap.SearchCriteria{from, seen}}, true},
		{"or", goimap.SearchCriteria{Or: [][2]goimap.SearchCriteria{{from, seen}}}, true},
		{"or without flags", goimap.SearchCriteria{Or: [][2]goimap.SearchCriteria{{from, from}}}, false},
	} {
		if got := byFlags(&tc.c); got != tc.want {
			t.Errorf("byFlags(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
	// What search_emails sends for unread=true and flagged=false.
	yes, no := true, false
	for _, c := range []SearchCriteria{{Unread: &yes}, {Flagged: &no}} {
		ic, err := c.imap()
		if err != nil || !byFlags(ic) {
			t.Errorf("byFlags(%+v.imap()) = false, %v; want true", c, err)
		}
	}
}
