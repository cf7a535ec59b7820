package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/inboxtools"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/message"
)

// This file is what the web inbox (package web) asks of the tools: a tool
// call run in-process through the registry (so read-only mode, the rate
// limit, audit and the cleaning of results apply as on /mcp/call), and the
// three things no tool returns to a browser: a message's raw source, an
// attachment's bytes and the arrival of new mail.

// errNoMail answers the web's extra operations on a server without IMAP.
var errNoMail = errors.New("no mailbox is configured")

// Source writes message uid of folder as stored (headers and body), at most
// limit bytes, and reports whether it was cut. uid is a UID or an id.
func (s *Server) Source(ctx context.Context, folder, uid string, limit int64) ([]byte, bool, error) {
	if s.deps.Mail == nil {
		return nil, false, Classify(errNoMail)
	}
	folder, ref, err := webTarget(folder, uid)
	if err != nil {
		return nil, false, Classify(err)
	}
	msg, err := s.deps.Mail.FetchMessage(ctx, folder, ref.UID, limit)
	if err == nil {
		err = checkValidity(ref, msg.UIDValidity, folder)
	} else {
		err = messageError(err, folder, ref.UID)
	}
	if err != nil {
		return nil, false, Classify(err)
	}
	return msg.Raw, !msg.Complete, nil
}

// Attachment streams attachment index (read_email's) of message uid,
// decoded, to w; head is called with its cleaned file name and media type
// before the first byte is written.
func (s *Server) Attachment(ctx context.Context, folder, uid string, index int, w io.Writer, head func(name, contentType string)) error {
	if s.deps.Mail == nil {
		return Classify(errNoMail)
	}
	folder, ref, err := webTarget(folder, uid)
	if err != nil {
		return Classify(err)
	}
	part, msg, err := imap.FindAttachment(ctx, s.deps.Mail, folder, ref.UID, ref.Validity, index)
	if err != nil {
		return Classify(downloadError(err, folder, ref.UID))
	}
	name, _ := message.CleanLine(part.DefaultName(index))
	head(message.BoundName(name), message.BoundContentType(part.SafeMediaType()))
	if err := imap.StreamAttachment(ctx, s.deps.Mail, folder, msg.UID, part, w); err != nil {
		return Classify(downloadError(err, folder, msg.UID))
	}
	return nil
}

// Watch calls arrived with each message that reaches folder from now on
// (imap.Client.WatchNew: the watcher the waits use) until ctx ends, which
// returns nil, or the watcher fails; ready is called once it is subscribed.
func (s *Server) Watch(ctx context.Context, folder string, ready func(), arrived func(uid uint32)) error {
	w, ok := s.deps.Mail.(interface {
		WatchNew(ctx context.Context, folder string, ready func(), arrived func(uid uint32)) error
	})
	if !ok {
		return Classify(errNoMail)
	}
	folder, err := checkFolder(folder, "folder")
	if err == nil {
		err = w.WatchNew(ctx, folder, ready, arrived)
	}
	if err != nil {
		return Classify(err)
	}
	return nil
}

// webTarget checks a folder and a message reference given as text.
func webTarget(folder, uid string) (string, UID, error) {
	folder, err := checkFolder(folder, "folder")
	if err != nil {
		return "", UID{}, err
	}
	var ref UID
	b, _ := json.Marshal(uid)
	if err := ref.UnmarshalJSON(b); err != nil || ref.UID == 0 {
		return "", UID{}, mcpkit.InvalidArg("uid must be a message UID or id")
	}
	return folder, ref, nil
}

// Find runs the extractors of the waits on a raw message and returns what
// they found as JSON (inboxtools.Find).
func (s *Server) Find(raw []byte) json.RawMessage { return inboxtools.Find(raw) }
