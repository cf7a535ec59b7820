package imap

import (
	"fmt"
	"strings"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// Summary is what a search reports of one message.
type Summary struct {
	UID       uint32
	MessageID string // without <>
	Subject   string // decoded
	From, To  []Address
	// Date is the Date header, or INTERNALDATE when the header is missing
	// or unreadable.
	Date         time.Time
	InternalDate time.Time // arrival on the server
	Flags        []string  // system flags spelled `\Seen`, `\Answered`...
	Seen         bool
	Flagged      bool
	Answered     bool
	// HasAttachments: the BODYSTRUCTURE has an attachment that is not
	// embedded (Part.HasAttachments).
	HasAttachments bool
	Size           int64 // RFC822.SIZE
}

// Address is a mailbox of an address header.
type Address struct {
	Name  string // decoded display name; may be ""
	Email string // local@domain
}

// summaryFetch is what Search fetches for each message of a page.
var summaryFetch = &goimap.FetchOptions{
	UID: true, Flags: true, Envelope: true, RFC822Size: true, InternalDate: true,
	BodyStructure: &goimap.FetchItemBodyStructure{Extended: true}, // dispositions are in the extended form
}

// fetchSummaries fetches the summaries of uids (newest first) with one UID
// FETCH and returns them in that order. A message expunged since the search
// is left out.
func fetchSummaries(cn *conn, uids []uint32) ([]Summary, error) {
	set := uidSet(uids)
	bufs, err := cn.ic.Fetch(set, summaryFetch).Collect()
	if err != nil {
		return nil, fmt.Errorf("uid fetch: %w", err)
	}
	byUID := make(map[uint32]*imapclient.FetchMessageBuffer, len(bufs))
	for _, b := range bufs {
		byUID[uint32(b.UID)] = b
	}
	out := make([]Summary, 0, len(uids))
	for _, u := range uids {
		if b := byUID[u]; b != nil {
			out = append(out, summaryOf(b))
		}
	}
	return out, nil
}

// summaryOf converts one FETCH answer.
func summaryOf(b *imapclient.FetchMessageBuffer) Summary {
	s := Summary{
		UID: uint32(b.UID), InternalDate: b.InternalDate, Date: b.InternalDate,
		Flags: flagStrings(b.Flags), Size: b.RFC822Size,
	}
	if e := b.Envelope; e != nil {
		s.MessageID, s.Subject = e.MessageID, e.Subject
		s.From, s.To = addresses(e.From), addresses(e.To)
		if !e.Date.IsZero() {
			s.Date = e.Date
		}
	}
	s.Seen, s.Flagged, s.Answered = hasFlag(s.Flags, goimap.FlagSeen), hasFlag(s.Flags, goimap.FlagFlagged), hasFlag(s.Flags, goimap.FlagAnswered)
	if b.BodyStructure != nil {
		s.HasAttachments = hasAttachments(b.BodyStructure)
	}
	return s
}

// addresses converts an envelope address list, leaving out group markers.
func addresses(l []goimap.Address) []Address {
	var out []Address
	for i := range l {
		if a := &l[i]; a.Addr() != "" {
			out = append(out, Address{Name: a.Name, Email: a.Addr()})
		}
	}
	return out
}

// systemFlags spells the system flags as RFC 3501 does; servers may answer
// in another case (imapmemserver lower-cases them).
var systemFlags = map[string]string{
	`\seen`: `\Seen`, `\answered`: `\Answered`, `\flagged`: `\Flagged`,
	`\deleted`: `\Deleted`, `\draft`: `\Draft`, `\recent`: `\Recent`,
}

// flagStrings converts flags, with system flags in their canonical case.
func flagStrings(flags []goimap.Flag) []string {
	out := make([]string, 0, len(flags))
	for _, f := range flags {
		s := string(f)
		if c, ok := systemFlags[strings.ToLower(s)]; ok {
			s = c
		}
		out = append(out, s)
	}
	return out
}

func hasFlag(flags []string, f goimap.Flag) bool {
	for _, s := range flags {
		if strings.EqualFold(s, string(f)) {
			return true
		}
	}
	return false
}

// uidSet is the set of uids.
func uidSet(uids []uint32) goimap.UIDSet {
	var set goimap.UIDSet
	for _, u := range uids {
		set.AddNum(goimap.UID(u))
	}
	return set
}
