package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/mcpkit"
)

// MarkResult is mark_email's result.
type MarkResult struct {
	Success bool                `json:"success"`
	UIDs    []uint32            `json:"uids"`
	Flags   map[string][]string `json:"flags" jsonschema:"the flags of each message after the change, by uid"`
}

type markArgs struct {
	UID      *UID   `json:"uid"`
	UIDs     []UID  `json:"uids"`
	Folder   string `json:"folder"`
	Read     *bool  `json:"read"`
	Flagged  *bool  `json:"flagged"`
	Answered *bool  `json:"answered"`
}

const maxMarkUIDs = 500

func markEmailSpec(mail Mailbox) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:  "mark_email",
		Title: "Mark emails",
		Description: "Mark one message (uid) or several (uids) as read or unread, flagged or not, answered or not. " +
			"Give at least one of read, flagged, answered. If any uid does not exist nothing is changed.",
		Toolset:  ToolsetMail,
		ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: true,
		ChangesMail: true,
		Params: []mcp.ToolOption{
			uidParam(), uidsParam(),
			mcp.WithString("folder", mcp.DefaultString("INBOX")),
			mcp.WithBoolean("read", mcp.Description("true: mark read; false: mark unread")),
			mcp.WithBoolean("flagged", mcp.Description("true: flag (star); false: unflag")),
			mcp.WithBoolean("answered", mcp.Description("true: mark answered; false: not answered")),
		},
		Output: mcp.WithOutputSchema[MarkResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args markArgs) (any, error) { return markEmail(ctx, mail, args) }),
	}
}

func markEmail(ctx context.Context, mail Mailbox, args markArgs) (*MarkResult, error) {
	folder, refs, err := messageArgs(args.Folder, args.UID, args.UIDs)
	if err != nil {
		return nil, err
	}
	if args.Read == nil && args.Flagged == nil && args.Answered == nil {
		return nil, mcpkit.InvalidArg("give at least one of read, flagged, answered")
	}
	uids, err := refUIDs(ctx, mail, folder, refs)
	if err != nil {
		return nil, err
	}
	flags, err := mail.SetFlags(ctx, folder, uids, imap.FlagChange{Seen: args.Read, Flagged: args.Flagged, Answered: args.Answered})
	if err != nil {
		return nil, missingUIDs(err, folder)
	}
	out := &MarkResult{Success: true, UIDs: uids, Flags: make(map[string][]string, len(flags))}
	for uid, f := range flags {
		out.Flags[strconv.FormatUint(uint64(uid), 10)] = nonNil(f)
	}
	return out, nil
}

// uidParam and uidsParam are the message arguments of the tools that take
// one message or several (mark_email, delete_email).
func uidParam() mcp.ToolOption {
	return mcp.WithAny("uid", uidSchema(), mcp.Description("one message: UID or id"))
}

func uidsParam() mcp.ToolOption {
	return mcp.WithArray("uids", mcp.Items(map[string]any{"type": []string{"integer", "string"}}), mcp.MaxItems(maxMarkUIDs),
		mcp.Description("several messages: UIDs or ids"))
}

// messageArgs checks the folder argument and joins uid and uids, at least
// one and at most maxMarkUIDs.
func messageArgs(folderArg string, uid *UID, uids []UID) (string, []UID, error) {
	folder, err := checkFolder(folderArg, "folder")
	if err != nil {
		return "", nil, err
	}
	refs := uids
	if uid != nil {
		refs = append([]UID{*uid}, refs...)
	}
	switch {
	case len(refs) == 0:
		return "", nil, mcpkit.InvalidArg("give uid or uids")
	case len(refs) > maxMarkUIDs:
		return "", nil, mcpkit.InvalidArg("at most %d uids at once", maxMarkUIDs)
	}
	return folder, refs, nil
}

// refUIDs checks refs against folder's UIDVALIDITY and returns their UIDs
// once each, in the order given (imap.RefUIDs).
func refUIDs(ctx context.Context, mail imap.ValidityReader, folder string, refs []UID) ([]uint32, error) {
	in := make([]imap.Ref, len(refs))
	for i, r := range refs {
		in[i] = imap.Ref(r)
	}
	uids, err := imap.RefUIDs(ctx, mail, folder, in)
	if err != nil {
		return nil, folderError(err, folder)
	}
	return uids, nil
}

// missingUIDs names the missing uids in MESSAGE_NOT_FOUND.
func missingUIDs(err error, folder string) error {
	var m *imap.MissingUIDsError
	if errors.As(err, &m) {
		return &mcpkit.Error{Code: mcpkit.CodeMessageNotFound, Message: fmt.Sprintf("no message with uid %v in %q: nothing was changed", m.UIDs, folder), Cause: err}
	}
	return folderError(err, folder)
}
