package imap

import (
	"context"
	"fmt"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"github.com/email-mcp/email-mcp/message"
)

// ReadOptions says how ReadMessage reads a message.
type ReadOptions struct {
	// PrefixBytes is how much of the message the first UID FETCH brings
	// with its structure (<= 0: all of it). A message that fits is decoded
	// from those bytes; a longer one gets its text parts fetched on their own.
	PrefixBytes int64
	// MaxPartBytes bounds each text part fetched on its own (<= 0: whole).
	MaxPartBytes int64
	// UIDValidity, when not 0, is the UIDVALIDITY the caller's reference
	// was issued under: a folder with another is ErrUIDValidityChanged,
	// and nothing more is fetched or changed.
	UIDValidity uint32
	// MarkSeen sets \Seen once the message is read.
	MarkSeen bool
}

// Display is a message read for display.
type Display struct {
	*Message // Flags: after MarkSeen's change
	Header   message.Header
	Bodies   message.Bodies
	// Incomplete: a text part was longer than MaxPartBytes; its body ends
	// early (it was cut, never silently).
	Incomplete bool
	// Attachments are Part.Attachments of the structure, in that order
	// (the index a download takes), with their decoded sizes.
	Attachments []Attachment
}

// Attachment is an attachment of a Display.
type Attachment struct {
	*Part
	// DecodedSize is the size its download saves: exact when the part
	// lies in the bytes ReadMessage fetched, else estimated from the
	// encoded size (see attachment_size.go).
	DecodedSize int64
}

// ReadMessage reads message uid of folder for display, choosing its own
// round trips, all on one connection: the EXAMINE (a SELECT with MarkSeen;
// none when the connection has the folder selected), one UID FETCH of
// FetchMessage's items with the first PrefixBytes; when the message is
// longer, one UID FETCH of its text bodies (Part.Bodies), each cut at
// MaxPartBytes; with MarkSeen, SetFlags' UID SEARCH UID and UID STORE.
// Each exchange has its own CommandTimeout. A UID the folder does not have
// is ErrMessageNotFound.
func (c *Client) ReadMessage(ctx context.Context, folder string, uid uint32, o ReadOptions) (*Display, error) {
	op := fmt.Sprintf("read message %d in %q", uid, folder)
	if err := checkTarget(folder, uid); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	r := &reading{folder: folder, uid: uid, opts: o}
	if err := c.doSteps(ctx, op, r.fetchStep, r.bodiesStep, r.seenStep); err != nil {
		return nil, err
	}
	return r.display(), nil
}

// reading is the state of one ReadMessage between its steps.
type reading struct {
	folder string
	uid    uint32
	opts   ReadOptions
	msg    *Message
	parts  []*Part  // the text bodies fetched on their own
	raws   [][]byte // their encoded bodies
}

// The steps of ReadMessage (see doSteps): the FETCH, then the text bodies
// when the message did not come whole, then \Seen when asked.
func (r *reading) fetchStep() func(*conn) error { return r.fetch }

func (r *reading) bodiesStep() func(*conn) error {
	if r.msg.Complete {
		return nil
	}
	if r.parts = bodyParts(r.msg.Structure); len(r.parts) == 0 {
		return nil
	}
	return r.fetchBodies
}

func (r *reading) seenStep() func(*conn) error {
	if !r.opts.MarkSeen {
		return nil
	}
	return r.markSeen
}

func (r *reading) fetch(cn *conn) error {
	sel, _, err := cn.selectFolder(r.folder, r.opts.MarkSeen)
	if err != nil {
		return err
	}
	whole := wholeSection(r.opts.PrefixBytes)
	b, err := fetchOne(cn, r.uid, messageFetch(whole, true))
	if err != nil {
		return err
	}
	r.msg = messageOf(b, sel.uidValidity, whole, r.opts.PrefixBytes)
	if v := r.opts.UIDValidity; v != 0 && v != r.msg.UIDValidity {
		return fmt.Errorf("%w: the reference is for %d, the folder has %d", ErrUIDValidityChanged, v, r.msg.UIDValidity)
	}
	return nil
}

func (r *reading) fetchBodies(cn *conn) error {
	if _, _, err := cn.selectFolder(r.folder, r.opts.MarkSeen); err != nil {
		return err
	}
	var err error
	r.raws, err = fetchSections(cn, r.uid, partPaths(r.parts), r.opts.MaxPartBytes)
	return err
}

func (r *reading) markSeen(cn *conn) error {
	if _, _, err := cn.selectFolder(r.folder, true); err != nil {
		return err
	}
	uids := []uint32{r.uid}
	if err := checkUIDs(cn, r.folder, uids); err != nil {
		return err
	}
	flags, err := storeFlags(cn, uidSet(uids), []goimap.Flag{goimap.FlagSeen}, nil)
	r.msg.Flags = flags[r.uid]
	return err
}

// display decodes what was fetched.
func (r *reading) display() *Display {
	d := r.msg.Display()
	if !r.msg.Complete {
		d.Bodies, d.Incomplete = decodeBodies(r.parts, r.raws, r.opts.MaxPartBytes)
	}
	return d
}

// Display decodes a message FetchMessage read, with no I/O: its header,
// its attachments and, when it came whole (Complete), its bodies. Of a
// message that came in part the bodies are empty: ReadMessage and Bodies
// fetch them.
func (m *Message) Display() *Display {
	d := &Display{Message: m, Attachments: []Attachment{}}
	d.Header, _ = message.ParseHeader(m.Raw)
	if m.Complete {
		d.Bodies, _ = message.ParseBodies(m.Raw)
	}
	if m.Structure == nil {
		return d
	}
	var bodies map[string][]byte
	for _, p := range m.Structure.Attachments() {
		if bodies == nil && (p.Encoding == "base64" || p.Encoding == "quoted-printable") {
			bodies = rawBodies(m.Raw, m.Complete)
		}
		d.Attachments = append(d.Attachments, Attachment{Part: p, DecodedSize: attachmentSize(p, bodies)})
	}
	return d
}

// Bodies returns the decoded text and HTML bodies of m, a message of
// folder as FetchMessage read it: from m.Raw when it is Complete (no I/O),
// else with one UID FETCH of its text bodies (Part.Bodies), each cut at
// maxPartBytes; incomplete reports that one was longer.
func (c *Client) Bodies(ctx context.Context, folder string, m *Message, maxPartBytes int64) (b message.Bodies, incomplete bool, err error) {
	if m.Complete {
		b, _ = message.ParseBodies(m.Raw)
		return b, false, nil
	}
	parts := bodyParts(m.Structure)
	if len(parts) == 0 {
		return message.Bodies{}, false, nil
	}
	raws, err := c.FetchParts(ctx, folder, m.UID, partPaths(parts), maxPartBytes)
	if err != nil {
		return message.Bodies{}, false, err
	}
	b, incomplete = decodeBodies(parts, raws, maxPartBytes)
	return b, incomplete, nil
}

// bodyParts is Part.Bodies as a list: the text body, then the HTML one.
func bodyParts(root *Part) []*Part {
	var parts []*Part
	text, html := root.Bodies()
	for _, p := range []*Part{text, html} {
		if p != nil {
			parts = append(parts, p)
		}
	}
	return parts
}

func partPaths(parts []*Part) [][]int {
	paths := make([][]int, len(parts))
	for i, p := range parts {
		paths[i] = p.Path
	}
	return paths
}

// decodeBodies decodes the text bodies parts fetched as raws, each cut at
// maxBytes; incomplete: one was longer.
func decodeBodies(parts []*Part, raws [][]byte, maxBytes int64) (b message.Bodies, incomplete bool) {
	var text, html string
	for i, p := range parts {
		incomplete = incomplete || maxBytes > 0 && int64(len(raws[i])) >= maxBytes && p.Size > maxBytes
		s, _ := message.DecodeText(raws[i], p.MediaType(), p.Params, p.Encoding)
		if p.Subtype == "plain" {
			text = s
		} else {
			html = s
		}
	}
	return message.MakeBodies(text, html), incomplete
}

// Bodies returns the first text/plain and text/html parts that are bodies
// of the message at p: not attachments, not inside a forwarded message.
func (p *Part) Bodies() (text, html *Part) {
	var walk func(p *Part)
	walk = func(p *Part) {
		if p == nil {
			return
		}
		if p.Type == "multipart" {
			for _, ch := range p.Children {
				walk(ch)
			}
			return
		}
		if p.Type != "text" || p.Disposition == "attachment" || p.Filename != "" {
			return
		}
		switch {
		case p.Subtype == "plain" && text == nil:
			text = p
		case p.Subtype == "html" && html == nil:
			html = p
		}
	}
	walk(p)
	return text, html
}

// doSteps is do for an operation of several exchanges on one connection,
// which it holds between them (with its selection). Each of steps is asked,
// once those before it have run, for its exchange (nil: none); each
// exchange runs under its own CommandTimeout, as separate operations
// would, and the first error ends the operation.
func (c *Client) doSteps(ctx context.Context, op string, steps ...func() func(cn *conn) error) error {
	cn, err := c.get(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	for _, next := range steps {
		fn := next()
		if fn == nil {
			continue
		}
		err = cn.run(ctx, c.opts.CommandTimeout, func(*imapclient.Client) error { return retryStale(cn, fn) })
		if err != nil {
			break
		}
	}
	c.put(cn, err)
	return translate(op, err)
}
