package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
)

// SendTestCodeResult is send_test_code's result.
type SendTestCodeResult struct {
	MessageID string `json:"message_id"`
	SentAt    string `json:"sent_at"`
}

// Rate limits of send_test_code, per hour.
const (
	testCodesPerInbox   = 5
	testCodesPerAccount = 20
)

func sendTestCodeSpec(ib *inboxes, limit *hourlyLimit) *spec {
	return &spec{
		name:  "send_test_code",
		title: "Put a sample code into a test inbox",
		description: "Put a sample verification-code email straight into a test inbox (no SMTP), to try wait_for_otp end to end. " +
			fmt.Sprintf("Limited to %d per inbox and %d per account per hour.", testCodesPerInbox, testCodesPerAccount),
		toolset:  ToolsetInbox,
		readOnly: false, destructive: false, idempotent: false, openWorld: true,
		changesMail: true,
		params:      []mcp.ToolOption{inboxIDParam()},
		output:      mcp.WithOutputSchema[SendTestCodeResult](),
		handle: func(ctx context.Context, req mcp.CallToolRequest) (any, error) {
			var args inboxIDArgs
			if err := bindArgs(req, &args); err != nil {
				return nil, err
			}
			tag, addr, err := ib.resolve(ctx, args.InboxID)
			if err != nil {
				return nil, err
			}
			now := time.Now()
			if wait := limit.take(now, map[string]int{"inbox:" + tag: testCodesPerInbox, "account": testCodesPerAccount}); wait > 0 {
				secs := int(math.Ceil(wait.Seconds()))
				return nil, &Error{Code: CodeRateLimited,
					Message: fmt.Sprintf("send_test_code allows %d per inbox and %d per account per hour: the next one is possible in %d s", testCodesPerInbox, testCodesPerAccount, secs),
					Details: map[string]any{"retry_after_seconds": secs}}
			}
			id, err := ib.appendTestCode(ctx, addr, now)
			if err != nil {
				return nil, err
			}
			return &SendTestCodeResult{MessageID: id, SentAt: formatTime(now)}, nil
		},
	}
}

// appendTestCode APPENDs a sample OTP mail addressed to addr.
func (ib *inboxes) appendTestCode(ctx context.Context, addr string, now time.Time) (string, error) {
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
		return "", folderError(err, ib.opts.Folder)
	}
	return id, nil
}

// DeleteInboxResult is delete_inbox's result.
type DeleteInboxResult struct {
	Deleted int    `json:"deleted" jsonschema:"messages moved to Trash"`
	Trash   string `json:"trash" jsonschema:"the folder they were moved to"`
}

func deleteInboxSpec(ib *inboxes) *spec {
	return &spec{
		name:        "delete_inbox",
		title:       "Delete a test inbox",
		description: "Move every message of a test inbox to Trash and forget the inbox. The address may still receive mail afterwards.",
		toolset:     ToolsetInbox,
		readOnly:    false, destructive: true, idempotent: true, openWorld: true,
		changesMail: true,
		params:      []mcp.ToolOption{inboxIDParam()},
		output:      mcp.WithOutputSchema[DeleteInboxResult](),
		handle: func(ctx context.Context, req mcp.CallToolRequest) (any, error) {
			var args inboxIDArgs
			if err := bindArgs(req, &args); err != nil {
				return nil, err
			}
			_, addr, err := ib.resolve(ctx, args.InboxID)
			if err != nil {
				return nil, err
			}
			out, err := ib.delete(ctx, addr)
			if err == nil {
				ib.known.forget(addr) // its marker is gone: a second delete_inbox is INBOX_NOT_FOUND
			}
			return out, err
		},
	}
}

// delete moves the inbox's messages and its marker to Trash.
func (ib *inboxes) delete(ctx context.Context, addr string) (*DeleteInboxResult, error) {
	trash, err := ib.store.FindSpecialUse(ctx, `\Trash`)
	if err != nil {
		return nil, folderError(err, "Trash")
	}
	if trash == "" {
		trash = "Trash"
	}
	out := &DeleteInboxResult{Trash: trash}
	for _, folder := range []string{ib.opts.Folder, markerFolder} {
		n, err := ib.moveAll(ctx, folder, addr, trash)
		if folder == markerFolder && errors.Is(err, imap.ErrFolderNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if folder == ib.opts.Folder {
			out.Deleted = n
		}
	}
	return out, nil
}

// moveAll moves every message to addr in folder to trash, a page (one
// MOVE) at a time. A batch cut off may leave copies in both folders
// (imap.Client.MoveMany): the error says so, and delete_inbox again moves
// what is left, at worst with a second copy in Trash.
func (ib *inboxes) moveAll(ctx context.Context, folder, addr, trash string) (int, error) {
	moved := 0
	for range 1000 { // bounded: 1000 pages of 200
		res, err := ib.store.Search(ctx, folder, imap.SearchCriteria{Recipient: addr}, imap.PageRequest{Limit: 200, UIDsOnly: true})
		if err != nil {
			return moved, folderError(err, folder)
		}
		if len(res.Messages) == 0 {
			return moved, nil
		}
		uids := make([]uint32, len(res.Messages))
		for i, m := range res.Messages {
			uids[i] = m.UID
		}
		n, err := ib.store.MoveMany(ctx, folder, uids, trash)
		switch {
		case errors.Is(err, imap.ErrFolderNotFound): // the source was just searched: the target is missing
			return moved, &Error{Code: CodeFolderNotFound, Message: fmt.Sprintf("the trash folder %q does not exist: create it, or mark a folder \\Trash", trash), Cause: err}
		case errors.Is(err, imap.ErrUnsupported):
			return moved, &Error{Code: CodeInternal, Message: "this server supports neither MOVE nor UIDPLUS, so messages cannot be moved safely", Cause: err}
		case err != nil:
			return moved, folderError(err, folder)
		}
		moved += n
		if res.NextBeforeUID == 0 {
			return moved, nil
		}
	}
	return moved, nil
}
