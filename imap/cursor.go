package imap

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
)

// A cursor is the page token of a paged Search: the folder's UIDVALIDITY,
// the UID the next page starts below, and a digest of the search, so that
// a cursor is not reused for another search. Pager turns a cursor given
// back into the next PageRequest and a SearchResult into the next cursor.

// CursorError is a cursor that Pager cannot take: not one it wrote, or
// (Foreign) one of another search.
type CursorError struct {
	Foreign bool
}

func (e *CursorError) Error() string {
	if e.Foreign {
		return "imap: cursor of another search"
	}
	return "imap: not a cursor"
}

type cursor struct {
	Validity, BeforeUID uint32
	Search              uint32
}

func (c cursor) encode() string {
	b := make([]byte, 13)
	b[0] = 1
	binary.BigEndian.PutUint32(b[1:], c.Validity)
	binary.BigEndian.PutUint32(b[5:], c.BeforeUID)
	binary.BigEndian.PutUint32(b[9:], c.Search)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 13 || b[0] != 1 {
		return cursor{}, &CursorError{}
	}
	return cursor{binary.BigEndian.Uint32(b[1:]), binary.BigEndian.Uint32(b[5:]), binary.BigEndian.Uint32(b[9:])}, nil
}

// searchDigest identifies a search (folder + criteria) for its cursors. The
// criteria go through JSON, which follows the pointers of the optional
// filters (unread, flagged, has_attachments); %+v printed their addresses,
// so no second page of such a search matched its first.
func searchDigest(folder string, c SearchCriteria) uint32 {
	b, _ := json.Marshal(struct {
		Folder   string
		Criteria SearchCriteria
	}{folder, c})
	sum := sha256.Sum256(b)
	return binary.BigEndian.Uint32(sum[:4])
}

// Pager is one page of a paged search: Req asks for it, Next writes the
// cursor of the page after it.
type Pager struct {
	Req    PageRequest
	digest uint32
}

// NewPager checks cursor ("" for the first page): it must come from the
// same search (folder and criteria), and it carries the UIDVALIDITY it was
// issued under. A cursor it cannot take is a *CursorError.
func NewPager(cursor, folder string, crit SearchCriteria, limit int) (Pager, error) {
	p := Pager{Req: PageRequest{Limit: limit}, digest: searchDigest(folder, crit)}
	if cursor == "" {
		return p, nil
	}
	c, err := decodeCursor(cursor)
	if err != nil {
		return p, err
	}
	if c.Search != p.digest {
		return p, &CursorError{Foreign: true}
	}
	p.Req.BeforeUID, p.Req.UIDValidity = c.BeforeUID, c.Validity
	return p, nil
}

// Next is the cursor of the page after res, or nil on the last page.
func (p Pager) Next(res *SearchResult) *string {
	if res.NextBeforeUID == 0 {
		return nil
	}
	s := cursor{Validity: res.UIDValidity, BeforeUID: res.NextBeforeUID, Search: p.digest}.encode()
	return &s
}
