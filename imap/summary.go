package imap

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"github.com/email-mcp/email-mcp/message"
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
	// SubjectCut and ToCut: the field was longer than its fetch budget
	// (summaryFields), so Subject ends early and To lists only the entries
	// that fit.
	SubjectCut, ToCut bool
}

// Address is a mailbox of an address header.
type Address struct {
	Name  string // decoded display name; may be ""
	Email string // local@domain
}

// summaryField is one header field a summary needs, fetched on its own as
// BODY.PEEK[HEADER.FIELDS (key)]<0.size>: a sender who writes a huge field
// gets it cut at size bytes by the server, and cannot push the other
// fields out of the budget. (ENVELOPE would bring whole subjects and
// address lists: 10 MB for one subject.)
type summaryField struct {
	key  string
	size int64
	list bool // an address list: a cut ends at the last whole entry
}

// summaryFields are the fields of a summary with their byte budgets (keys
// separated by blanks share one section): room
// for the bounds of message (MaxSubjectChars as RFC 2047 words, more To
// entries than MaxSummaryAddresses to count), and Content-Type for the
// charset of raw 8-bit header bytes.
var summaryFields = []summaryField{
	{"Subject", 8 << 10, false},
	{"From", 2 << 10, true},
	{"To", 16 << 10, true},
	{"Date Message-ID Content-Type", 4 << 10, false}, // small ones together: fewer sections to extract
}

// summarySections are the body sections of summaryFields.
var summarySections = func() []*goimap.FetchItemBodySection {
	out := make([]*goimap.FetchItemBodySection, len(summaryFields))
	for i, f := range summaryFields {
		out[i] = &goimap.FetchItemBodySection{
			Specifier: goimap.PartSpecifierHeader, HeaderFields: strings.Fields(f.key), Peek: true,
			Partial: &goimap.SectionPartial{Size: f.size},
		}
	}
	return out
}()

// summaryFetch is what Search fetches for each message of a page.
var summaryFetch = &goimap.FetchOptions{
	UID: true, Flags: true, RFC822Size: true, InternalDate: true,
	BodySection:   summarySections,
	BodyStructure: &goimap.FetchItemBodyStructure{Extended: true}, // dispositions are in the extended form
}

// fetchSummaries fetches the summaries of uids (newest first) with one UID
// FETCH and returns them in that order. A message expunged since the search
// is left out.
func fetchSummaries(cn *conn, uids []uint32) ([]Summary, error) {
	set := uidSet(uids)
	bufs, err := collect(cn, cn.ic.Fetch(set, summaryFetch))
	if err != nil {
		return nil, fmt.Errorf("uid fetch: %w", err)
	}
	byUID := make(map[uint32]*imapclient.FetchMessageBuffer, len(bufs))
	for _, b := range bufs {
		if b.UID != 0 && b.FindBodySection(summarySections[0]) != nil {
			byUID[uint32(b.UID)] = b // not a flag update the server sent on its own
		}
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
	block, cut := summaryHeader(b)
	if h, err := message.ParseHeader(block); err == nil {
		s.MessageID, s.Subject = h.MessageID, h.Subject
		s.From, s.To = fromMessage(h.From), fromMessage(h.To)
		if !h.Date.IsZero() {
			s.Date = h.Date
		}
	}
	s.SubjectCut, s.ToCut = cut["Subject"], cut["To"]
	s.Seen, s.Flagged, s.Answered = hasFlag(s.Flags, goimap.FlagSeen), hasFlag(s.Flags, goimap.FlagFlagged), hasFlag(s.Flags, goimap.FlagAnswered)
	if b.BodyStructure != nil {
		s.HasAttachments = hasAttachments(b.BodyStructure)
	}
	return s
}

// summaryHeader joins the fetched fields of b into one header block and
// reports which of them the server cut at their budget.
func summaryHeader(b *imapclient.FetchMessageBuffer) ([]byte, map[string]bool) {
	var block []byte
	cut := map[string]bool{}
	for i, f := range summaryFields {
		raw := b.FindBodySection(summarySections[i])
		if int64(len(raw)) >= f.size && !bytes.HasSuffix(raw, []byte("\n\r\n")) {
			cut[f.key] = true
			raw = message.CutField(raw, f.list)
		}
		raw = bytes.TrimRight(raw, "\r\n")
		if len(raw) > 0 {
			block = append(append(block, raw...), "\r\n"...)
		}
	}
	return append(block, "\r\n"...), cut
}

// fromMessage converts decoded addresses, leaving out entries without an
// address.
func fromMessage(l []message.Address) []Address {
	var out []Address
	for _, a := range l {
		if a.Email != "" {
			out = append(out, Address{Name: a.Name, Email: a.Email})
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
// \Recent is left out: it belongs to one IMAP session (the first to see
// the message since it arrived; RFC 3501 2.3.2), so Dovecot showed it to
// one call and not the next, and IMAP4rev2 drops it.
func flagStrings(flags []goimap.Flag) []string {
	out := make([]string, 0, len(flags))
	for _, f := range flags {
		s := string(f)
		if c, ok := systemFlags[strings.ToLower(s)]; ok {
			s = c
		}
		if s == `\Recent` {
			continue
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
