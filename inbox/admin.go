package inbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/email-mcp/email-mcp/imap"
)

// Create makes a test inbox from an optional label and records it in the
// mailbox (one small \Seen message in MarkerFolder), so that List sees it
// after a restart and on another replica.
func (ib *Inboxes) Create(ctx context.Context, label string) (Inbox, error) {
	tag := newTag(label)
	addr := ib.address(tag)
	if err := ib.store.CreateFolder(ctx, MarkerFolder); err != nil {
		return Inbox{}, inFolder(err, MarkerFolder)
	}
	raw := fmt.Appendf(nil, "From: email-mcp <noreply@email-mcp.invalid>\r\nTo: <%s>\r\n%s: %s\r\nSubject: email-mcp test inbox %s\r\nDate: %s\r\n"+
		"Message-ID: <inbox-%s@email-mcp.invalid>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"+
		"This message records the test inbox %s created by email-mcp. Deleting it removes the inbox from list_inboxes.\r\n",
		addr, markerHeader, addr, addr, time.Now().Format(time.RFC1123Z), strings.ReplaceAll(addr, "@", "."), addr)
	_, err := ib.store.Append(ctx, MarkerFolder, []string{`\Seen`}, time.Now(), int64(len(raw)), bytes.NewReader(raw))
	if err != nil {
		return Inbox{}, inFolder(err, MarkerFolder)
	}
	ib.known.add(addr, time.Now())
	return Inbox{ID: tag, Address: addr}, nil
}

// Info is one inbox of List.
type Info struct {
	Inbox
	Messages int
	// Latest is the arrival of the newest message, zero when none.
	Latest time.Time
}

// List returns one page (req, over MarkerFolder) of the inboxes, newest
// first, with their message counts, and the marker search's result (where
// the next page starts). No inbox created yet is an empty page.
func (ib *Inboxes) List(ctx context.Context, req imap.PageRequest) ([]Info, *imap.SearchResult, error) {
	res, err := ib.store.Search(ctx, MarkerFolder, imap.SearchCriteria{}, req)
	if isMissing(err) {
		return []Info{}, &imap.SearchResult{}, nil // no inbox created yet
	}
	if err != nil {
		return nil, nil, inFolder(err, MarkerFolder)
	}
	out := []Info{}
	var crits []imap.SearchCriteria
	for _, m := range res.Messages {
		if len(m.To) == 0 {
			continue
		}
		addr := strings.ToLower(m.To[0].Email)
		tag := ib.tagOf(addr)
		if !tagPattern.MatchString(tag) || ib.address(tag) != addr {
			continue
		}
		out = append(out, Info{Inbox: Inbox{ID: tag, Address: addr}})
		crits = append(crits, imap.SearchCriteria{Recipient: addr})
	}
	// One search per inbox, pipelined on one connection (imap.CountMatches).
	counts, err := ib.store.CountMatches(ctx, ib.opts.Folder, crits)
	if err != nil {
		return nil, nil, inFolder(err, ib.opts.Folder)
	}
	for i, c := range counts {
		out[i].Messages = c.Total
		if c.NewestUID != 0 {
			out[i].Latest = c.NewestArrival
		}
	}
	return out, res, nil
}

// Rate limits of SendTestCode, per hour.
const (
	TestCodesPerInbox   = 5
	TestCodesPerAccount = 20
)

// SendTestCode APPENDs a sample OTP mail to the inbox named by id (no
// SMTP), within TestCodesPerInbox and TestCodesPerAccount an hour
// (RateLimited beyond), and returns its Message-ID and when it was sent.
func (ib *Inboxes) SendTestCode(ctx context.Context, id string) (msgID string, sent time.Time, err error) {
	in, err := ib.Resolve(ctx, id)
	if err != nil {
		return "", time.Time{}, err
	}
	now := time.Now()
	if wait := ib.codes.Take(now, map[string]int{"inbox:" + in.ID: TestCodesPerInbox, "account": TestCodesPerAccount}); wait > 0 {
		return "", time.Time{}, &Error{Kind: RateLimited, RetryAfter: wait,
			Msg: fmt.Sprintf("send_test_code allows %d per inbox and %d per account per hour: the next one is possible in %d s",
				TestCodesPerInbox, TestCodesPerAccount, int(math.Ceil(wait.Seconds())))}
	}
	msgID, err = ib.appendTestCode(ctx, in.Address, now)
	return msgID, now, err
}

// appendTestCode APPENDs a sample OTP mail addressed to addr.
func (ib *Inboxes) appendTestCode(ctx context.Context, addr string, now time.Time) (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(900000))
	if err != nil {
		return "", err
	}
	code := fmt.Sprintf("%06d", n.Int64()+100000)
	id := fmt.Sprintf("test-code-%d.%s@email-mcp.invalid", now.UnixNano(), code)
	raw := fmt.Appendf(nil, "From: email-mcp test <noreply@email-mcp.invalid>\r\nTo: <%s>\r\nSubject: Your verification code is %s\r\n"+
		"Date: %s\r\nMessage-ID: <%s>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"+
		"Your verification code is %s.\r\n\r\nIt expires in 10 minutes. This is a sample sent by email-mcp's send_test_code.\r\n",
		addr, code, now.Format(time.RFC1123Z), id, code)
	if _, err := ib.store.Append(ctx, ib.opts.Folder, nil, now, int64(len(raw)), bytes.NewReader(raw)); err != nil {
		return "", inFolder(err, ib.opts.Folder)
	}
	return id, nil
}
