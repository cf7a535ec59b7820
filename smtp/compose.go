package smtp

import (
	"fmt"
	"io"
	"mime"
	"strings"

	"github.com/emersion/go-message"
)

// dateLayout is RFC 5322's date-time.
const dateLayout = "Mon, 02 Jan 2006 15:04:05 -0700"

// WriteTo writes m as an RFC 5322 message with CRLF line ends: text only is
// text/plain, text and HTML multipart/alternative, with attachments
// multipart/mixed; bodies are UTF-8 quoted-printable, attachments base64
// streamed from Open, the subject and names RFC 2047, file names RFC 2231.
// Bcc is never written, except in a Draft. It validates m first (ErrInvalidArgument) and is
// deterministic (see Message).
func (m *Message) WriteTo(w io.Writer) (int64, error) {
	if err := m.prepare(); err != nil {
		return 0, err
	}
	cw := &countingWriter{w: w}
	err := m.compose(cw, true)
	return cw.n, err
}

// Size returns the number of bytes WriteTo writes, without opening the
// attachments (it trusts Attachment.Size, which WriteTo enforces).
func (m *Message) Size() (int64, error) {
	if err := m.prepare(); err != nil {
		return 0, err
	}
	cw := &countingWriter{w: io.Discard}
	if err := m.compose(cw, false); err != nil {
		return 0, err
	}
	n := cw.n
	for _, a := range m.Attachments {
		if a.embedded() {
			n += a.Size
		} else {
			n += base64Len(a.Size)
		}
	}
	return n, nil
}

// base64Len is the length of go-message's base64 for n bytes: 76-character
// lines joined by CRLF, no CRLF after the last one.
func base64Len(n int64) int64 {
	if n <= 0 {
		return 0
	}
	enc := (n + 2) / 3 * 4
	lines := (enc + 75) / 76
	return enc + 2*(lines-1)
}

// compose writes the message; without bodies, attachments are left empty
// (for Size).
func (m *Message) compose(w io.Writer, bodies bool) error {
	top := m.topFields()
	if len(m.Attachments) == 0 {
		mw, err := message.CreateWriter(w, append(top, m.bodyFields()...).header())
		if err != nil {
			return fmt.Errorf("compose: %w", err)
		}
		if err := m.writeBody(mw); err != nil {
			return err
		}
		return mw.Close()
	}
	mixed := fields{{"Content-Type", multipartType("mixed", m.boundary("m"))}}
	mw, err := message.CreateWriter(w, append(top, mixed...).header())
	if err != nil {
		return fmt.Errorf("compose: %w", err)
	}
	pw, err := mw.CreatePart(m.bodyFields().header())
	if err != nil {
		return fmt.Errorf("compose: %w", err)
	}
	if err := m.writeBody(pw); err != nil {
		return err
	}
	if err := pw.Close(); err != nil {
		return err
	}
	for i, a := range m.Attachments {
		if err := writeAttachment(mw, a, fmt.Sprintf("attachments[%d]", i), bodies); err != nil {
			return err
		}
	}
	return mw.Close()
}

// topFields are the message header fields, in the order they are written.
func (m *Message) topFields() fields {
	f := fields{
		{"Date", m.Date.Format(dateLayout)},
		{"From", m.From.header()},
	}
	f = f.addresses("Reply-To", m.ReplyTo)
	f = f.addresses("To", m.To)
	f = f.addresses("Cc", m.Cc)
	if m.Draft {
		f = f.addresses("Bcc", m.Bcc)
	}
	f = append(f, field{"Subject", encodeText(m.Subject)})
	f = append(f, field{"Message-Id", "<" + m.ID() + ">"})
	if m.InReplyTo != "" {
		f = append(f, field{"In-Reply-To", "<" + normalizeID(m.InReplyTo) + ">"})
	}
	if len(m.References) > 0 {
		ids := make([]string, len(m.References))
		for i, id := range m.References {
			ids[i] = "<" + normalizeID(id) + ">"
		}
		f = append(f, field{"References", strings.Join(ids, " ")})
	}
	return append(f, field{"Mime-Version", "1.0"})
}

// bodyFields is the Content-Type of the body: one text part or an
// alternative of both.
func (m *Message) bodyFields() fields {
	if m.Text != "" && m.HTML != "" {
		return fields{{"Content-Type", multipartType("alternative", m.boundary("a"))}}
	}
	if m.HTML != "" {
		return textFields("text/html")
	}
	return textFields("text/plain")
}

// writeBody writes the text part(s) into w, made from bodyFields; the
// caller closes w.
func (m *Message) writeBody(w *message.Writer) error {
	if m.Text == "" || m.HTML == "" {
		_, err := io.WriteString(w, m.Text+m.HTML)
		return err
	}
	for _, p := range []struct{ typ, body string }{{"text/plain", m.Text}, {"text/html", m.HTML}} {
		pw, err := w.CreatePart(textFields(p.typ).header())
		if err != nil {
			return fmt.Errorf("compose: %w", err)
		}
		if _, err := io.WriteString(pw, p.body); err != nil {
			return err
		}
		if err := pw.Close(); err != nil {
			return err
		}
	}
	return nil
}

// boundary derives a fixed boundary from the message's seed. The "=_"
// prefix cannot occur in quoted-printable or base64 output, so no body can
// contain a boundary line; an Embedded message, written as it is, could
// only by holding the random seed, which is drawn after it was received.
func (m *Message) boundary(kind string) string {
	return "=_" + kind + "_" + m.seed
}

func multipartType(sub, boundary string) string {
	return mime.FormatMediaType("multipart/"+sub, map[string]string{"boundary": boundary})
}

func textFields(typ string) fields {
	return fields{
		{"Content-Type", mime.FormatMediaType(typ, map[string]string{"charset": "utf-8"})},
		{"Content-Transfer-Encoding", "quoted-printable"},
	}
}

// writeAttachment adds one base64 part streamed from a.Open; without body
// the part is left empty.
func writeAttachment(mw *message.Writer, a Attachment, field string, body bool) error {
	pw, err := mw.CreatePart(attachmentFields(a).header())
	if err != nil {
		return fmt.Errorf("compose %s: %w", field, err)
	}
	if body {
		if err := copyAttachment(pw, a, field); err != nil {
			return err
		}
	}
	return pw.Close()
}

func copyAttachment(w io.Writer, a Attachment, field string) error {
	rc, err := a.Open()
	if err != nil {
		return fmt.Errorf("%s: open %q: %w", field, a.Filename, err)
	}
	defer rc.Close()
	n, err := io.Copy(w, io.LimitReader(rc, a.Size+1))
	if err != nil {
		return fmt.Errorf("%s: copy %q: %w", field, a.Filename, err)
	}
	if n != a.Size {
		return invalid(field, "%q has %d bytes, not the %d declared (changed meanwhile?)", a.Filename, n, a.Size)
	}
	return nil
}

// embedded reports an attachment written as Open gives it, not base64: a
// forwarded message (Embedded and message/rfc822).
func (a Attachment) embedded() bool {
	t, _, err := mime.ParseMediaType(a.ContentType)
	return a.Embedded && err == nil && t == "message/rfc822"
}

// attachmentFields: Content-Type with an RFC 2231 name (for old readers),
// Content-Disposition with an RFC 2231 filename, base64.
func attachmentFields(a Attachment) fields {
	typ, params := "application/octet-stream", map[string]string{}
	if t, p, err := mime.ParseMediaType(a.ContentType); err == nil {
		typ = t
		if cs := strings.ToLower(p["charset"]); cs == "utf-8" || cs == "us-ascii" {
			params["charset"] = cs
		}
	}
	params["name"] = a.Filename
	if a.embedded() {
		// A forwarded message goes in as it is (RFC 2046 5.2.1: no base64
		// for message/rfc822): its bytes are the original's, unchanged.
		delete(params, "charset")
		return fields{
			{"Content-Type", mime.FormatMediaType(typ, params)},
			{"Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": a.Filename})},
		}
	}
	return fields{
		{"Content-Type", mime.FormatMediaType(typ, params)},
		{"Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": a.Filename})},
		{"Content-Transfer-Encoding", "base64"},
	}
}

// field is one header field; fields keep the written order.
type field struct{ k, v string }

type fields []field

func (f fields) addresses(key string, list []Address) fields {
	if len(list) == 0 {
		return f
	}
	parts := make([]string, len(list))
	for i, a := range list {
		parts[i] = a.header()
	}
	return append(f, field{key, strings.Join(parts, ", ")})
}

// header builds a go-message header that writes the fields in f's order
// (go-message writes the last added field first).
func (f fields) header() message.Header {
	var h message.Header
	for i := len(f) - 1; i >= 0; i-- {
		h.Add(f[i].k, f[i].v)
	}
	return h
}

// countingWriter counts what passes through.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
