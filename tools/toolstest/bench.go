// Package toolstest has fakes for the tests and benchmarks of tools and of
// the packages that serve it (transport): a Mailbox with canned answers, so
// that what is measured is what email-mcp adds to the IMAP work.
package toolstest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
)

// BenchMail is a tools.Mailbox with canned answers: a 10,000-message INBOX whose
// newest page and one message it knows.
type BenchMail struct {
	Page *imap.SearchResult // what Search answers, cut to the page's limit
	Msg  *imap.Message      // what FetchMessage answers, for any UID
}

// errUnsupported is what BenchMail answers for what it does not fake.
var errUnsupported = errors.New("bench: not supported")

// ListFolders is not faked.
func (b *BenchMail) ListFolders(context.Context, bool) ([]imap.Folder, error) {
	return nil, errUnsupported
}

// Search answers Page, cut to the page's limit.
func (b *BenchMail) Search(_ context.Context, _ string, _ imap.SearchCriteria, p imap.PageRequest) (*imap.SearchResult, error) {
	res := *b.Page
	res.Messages = res.Messages[:min(p.Limit, len(res.Messages))]
	return &res, nil
}

// FetchMessage answers Msg.
func (b *BenchMail) FetchMessage(context.Context, string, uint32, int64) (*imap.Message, error) {
	return b.Msg, nil
}

// ReadMessage decodes the canned message as imap.Client.ReadMessage does
// once it has fetched it: the decoding stays in what is measured.
func (b *BenchMail) ReadMessage(context.Context, string, uint32, imap.ReadOptions) (*imap.Display, error) {
	return b.Msg.Display(), nil
}

// Bodies is not faked.
func (b *BenchMail) Bodies(context.Context, string, *imap.Message, int64) (message.Bodies, bool, error) {
	return message.Bodies{}, false, errUnsupported
}

// StreamPart is not faked.
func (b *BenchMail) StreamPart(context.Context, string, uint32, []int, io.Writer) (int64, error) {
	return 0, errUnsupported
}

// SetFlags is not faked.
func (b *BenchMail) SetFlags(context.Context, string, []uint32, imap.FlagChange) (map[uint32][]string, error) {
	return nil, errUnsupported
}

// Move is not faked.
func (b *BenchMail) Move(context.Context, string, uint32, string) (uint32, error) {
	return 0, errUnsupported
}

// UIDValidity is the page's.
func (b *BenchMail) UIDValidity(context.Context, string) (uint32, error) { return 1796000810, nil }

// BenchPage is the newest page (n messages) of a seeded INBOX (scripts/dovecot/seed.py
// style): names with accents, RFC 2047 subjects already decoded, flags,
// one in six with an attachment.
func BenchPage(n int) *imap.SearchResult {
	names := []imap.Address{{Name: "Alice Martin", Email: "alice@example.test"}, {Name: "Chloé Bernard", Email: "chloe@example.org"},
		{Name: "GitHub", Email: "notifications@example.com"}, {Name: "Billing", Email: "billing@shop.example"}}
	subjects := []string{"Quarterly report draft", "Re: lunch on Thursday?", "Your invoice #%d", "Réunion de l'équipe — ordre du jour", "Build #%d failed on main"}
	res := &imap.SearchResult{Folder: "INBOX", UIDValidity: 1796000810, Total: 10000, NextBeforeUID: uint32(10001 - n)}
	date := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for i := range n {
		uid := uint32(10000 - i)
		flags := []string{`\Seen`}
		if i%10 == 3 {
			flags = append(flags, `\Flagged`)
		}
		res.Messages = append(res.Messages, imap.Summary{
			UID: uid, MessageID: fmt.Sprintf("seed-%d-273716581@example.test", uid),
			Subject: strings.ReplaceAll(subjects[i%len(subjects)], "%d", fmt.Sprint(uid)),
			From:    []imap.Address{names[i%len(names)]}, To: []imap.Address{{Name: "Bob Durand", Email: "bob@example.test"}},
			Date: date.Add(-time.Duration(i) * time.Hour), InternalDate: date, Flags: flags,
			Seen: true, Flagged: i%10 == 3, HasAttachments: i%6 == 0, Size: int64(1500 + 37*i),
		})
	}
	return res
}

// BenchMessage is a 6 KB multipart/alternative mail, whole.
func BenchMessage() *imap.Message {
	var text, html strings.Builder
	for i := range 40 {
		fmt.Fprintf(&text, "Line %d of the report: the numbers for the quarter are attached, please review before Friday.\r\n", i)
		fmt.Fprintf(&html, "<p>Line %d of the report: the <b>numbers</b> for the quarter are <a href=\"https://example.test/r/%d\">here</a>.</p>\r\n", i, i)
	}
	raw := "From: \"Chloé Bernard\" <chloe@example.org>\r\nTo: Bob Durand <bob@example.test>\r\nCc: alice@example.test\r\n" +
		"Subject: =?UTF-8?B?UsOpdW5pb24gZGUgbCfDqXF1aXBl?=\r\nDate: Mon, 02 Mar 2026 09:00:00 +0000\r\n" +
		"Message-ID: <seed-9990@example.test>\r\nIn-Reply-To: <seed-9989@example.test>\r\nReferences: <seed-9988@example.test> <seed-9989@example.test>\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"alt\"\r\n\r\n" +
		"--alt\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + text.String() +
		"--alt\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body>" + html.String() + "</body></html>\r\n--alt--\r\n"
	st := &imap.Part{Type: "multipart", Subtype: "alternative", Children: []*imap.Part{
		{Path: []int{1}, Type: "text", Subtype: "plain", Params: map[string]string{"charset": "utf-8"}, Encoding: "7bit", Size: int64(text.Len())},
		{Path: []int{2}, Type: "text", Subtype: "html", Params: map[string]string{"charset": "utf-8"}, Encoding: "7bit", Size: int64(html.Len())},
	}}
	return &imap.Message{UID: 9990, UIDValidity: 1796000810, Flags: []string{`\Seen`}, InternalDate: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC),
		Size: int64(len(raw)), Structure: st, Raw: []byte(raw), Complete: true}
}
