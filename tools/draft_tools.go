package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/outbox"
)

// draftSpecs are save_draft, update_draft, send_draft and delete_draft; none
// when mail cannot store drafts.
func draftSpecs(mail Mailbox, o *outbox.Outbox, files *attachments.Workspace) []*mcpkit.Spec {
	b := newDraftBox(mail, o, files)
	if b == nil {
		return nil
	}
	return []*mcpkit.Spec{saveDraftSpec(b), updateDraftSpec(b), sendDraftSpec(b, o), deleteDraftSpec(b)}
}

// draftParams are the arguments of save_draft and update_draft.
func draftParams() []mcp.ToolOption {
	return []mcp.ToolOption{
		toParam(false), ccParam(), bccParam("blind copies: kept in the draft, removed when it is sent"),
		mcp.WithString("subject", mcp.MaxLength(998)),
		mcp.WithString("body", mcp.Description("plain-text body")),
		mcp.WithString("body_html", mcp.Description("optional HTML body")),
		mcp.WithString("from_name", mcp.Description("display name of the sender (default DEFAULT_FROM_NAME)")),
		mcp.WithArray("reply_to", mcp.WithStringItems(), mcp.MaxItems(maxReplyTo), mcp.Description("Reply-To addresses")),
		mcp.WithArray("attachment_paths", mcp.WithStringItems(), mcp.MaxItems(maxAttachments),
			mcp.Description("files in the attachments workspace, as send_email_with_attachments takes them")),
		mcp.WithAny("reply_to_uid", uidSchema(), mcp.Description("draft a reply to this message (UID or id in folder): threaded, \"Re:\", to its sender unless to/cc/bcc are given")),
		mcp.WithString("folder", mcp.Description(`folder of reply_to_uid (default "INBOX")`)),
	}
}

const draftNote = " Drafts are kept in the Drafts folder with the \\Draft flag (any mail client shows them); list them with search_emails and that folder."

func saveDraftSpec(b *outbox.Drafts) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:  "save_draft",
		Title: "Save a draft",
		Description: "Save an email as a draft to send later with send_draft (or for the user to finish), instead of sending it now (send_email). " +
			"Every argument is optional; the result's draft_id names the draft." + draftNote,
		Toolset:  ToolsetMail,
		ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true,
		ChangesMail: true,
		Params:      draftParams(),
		Output:      mcp.WithOutputSchema[DraftResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args draftArgs) (any, error) {
			d, err := args.draft()
			if err != nil {
				return nil, err
			}
			m, listed, err := b.Compose(ctx, d)
			if err != nil {
				return nil, err
			}
			saved, err := b.Save(ctx, m)
			if err != nil {
				return nil, err
			}
			return draftResult(saved, listed), nil
		}),
	}
}

type updateDraftArgs struct {
	draftArgs
	DraftID *UID `json:"draft_id"`
}

func updateDraftSpec(b *outbox.Drafts) *mcpkit.Spec {
	params := append([]mcp.ToolOption{
		mcp.WithAny("draft_id", mcp.Required(), uidSchema(), mcp.Description("the draft to replace: draft_id, or its uid in the Drafts folder")),
	}, draftParams()...)
	return &mcpkit.Spec{
		Name:  "update_draft",
		Title: "Replace a draft",
		Description: "Replace a draft with a new one made from these arguments, as save_draft makes it: give every field you want to keep " +
			"(its threading is kept). The old draft is removed; the result has the new draft_id.",
		Toolset:  ToolsetMail,
		ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true,
		ChangesMail: true,
		Params:      params,
		Output:      mcp.WithOutputSchema[DraftResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args updateDraftArgs) (any, error) {
			d, err := args.draft()
			if err != nil {
				return nil, err
			}
			up, err := b.Update(ctx, ref(args.DraftID), d)
			if err != nil {
				return nil, err
			}
			out := draftResult(up.Saved, up.Attached)
			out.Replaced = up.Replaced
			return out, nil
		}),
	}
}

type draftIDArgs struct {
	DraftID *UID `json:"draft_id"`
	// IdempotencyKey makes a repeat answer the first result (outbox/keys.go).
	IdempotencyKey string `json:"idempotency_key"`
}

func sendDraftSpec(b *outbox.Drafts, o *outbox.Outbox) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:  "send_draft",
		Title: "Send a draft",
		Description: "Send a saved draft exactly as stored (Bcc removed from the header, kept as recipients), keep it in Sent, and remove it from Drafts." +
			sendLimitsNote,
		Toolset:  ToolsetMail,
		ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true,
		ChangesMail: true,
		Params: []mcp.ToolOption{
			mcp.WithAny("draft_id", mcp.Required(), uidSchema(), mcp.Description("draft_id, or a uid in the Drafts folder")),
			idempotencyParam(),
		},
		Output: mcp.WithOutputSchema[SendDraftResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args draftIDArgs) (any, error) {
			return o.Once(ctx, "send_draft", args.IdempotencyKey, func(ctx context.Context) (any, error) {
				sent, err := b.Send(ctx, ref(args.DraftID))
				if err != nil {
					return nil, err
				}
				return &SendDraftResult{SendResult: sendResult(&sent.Sent), DraftRemoved: sent.Removed}, nil
			})
		}),
	}
}

type deleteDraftArgs struct {
	DraftID *UID `json:"draft_id"`
}

func deleteDraftSpec(b *outbox.Drafts) *mcpkit.Spec {
	return &mcpkit.Spec{
		Name:        "delete_draft",
		Title:       "Delete a draft",
		Description: "Delete a draft for good (it is not moved to Trash). Only messages of the Drafts folder can be deleted this way.",
		Toolset:     ToolsetMail,
		ReadOnly:    false, Destructive: true, Idempotent: true, OpenWorld: true,
		ChangesMail: true,
		Params: []mcp.ToolOption{
			mcp.WithAny("draft_id", mcp.Required(), uidSchema(), mcp.Description("draft_id, or a uid in the Drafts folder")),
		},
		Output: mcp.WithOutputSchema[DeleteDraftResult](),
		Handle: mcpkit.Bound(func(ctx context.Context, args deleteDraftArgs) (any, error) {
			id, err := b.Delete(ctx, ref(args.DraftID))
			if err != nil {
				return nil, err
			}
			return &DeleteDraftResult{Success: true, DraftID: id}, nil
		}),
	}
}
