package smtp

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"time"
)

// maxFilename bounds an attachment's file name, in bytes.
const maxFilename = 255

// Attachment is a file sent with a message. Its content is streamed from
// Open each time the message is written, never read whole.
type Attachment struct {
	Filename string
	// ContentType is the media type ("application/pdf"); "" means
	// application/octet-stream. Parameters other than a utf-8 or us-ascii
	// charset are dropped.
	ContentType string
	// Embedded, with ContentType message/rfc822, writes the content as
	// Open returns it, without a transfer encoding (RFC 2046 5.2.1): a
	// forwarded message, whose bytes are a mail already and stay the
	// original's. Everything else is base64.
	Embedded bool
	// Size is the exact length of what Open returns. Size computes the
	// message size from it, and writing fails if the content differs.
	Size int64
	Open func() (io.ReadCloser, error)
}

// Message is a mail to compose. Validate checks it; WriteTo writes it.
//
// WriteTo is deterministic: the first call (or ID) fixes MessageID and Date
// when they are empty, and the MIME boundaries, so every later call writes
// the same bytes (the copy APPENDed to Sent is the one that was sent). A
// Message must not be written concurrently, nor changed between the write
// that is sent and the one that is saved.
type Message struct {
	From                 Address
	To, Cc, Bcc, ReplyTo []Address // Bcc is never written: it goes only into the Envelope
	Subject              string
	Text, HTML           string   // bodies; both give multipart/alternative
	InReplyTo            string   // message id of the parent, with or without <>
	References           []string // the thread's message ids, oldest first
	Attachments          []Attachment
	Date                 time.Time // zero: the time of the first write
	// MessageID, without <>, is generated as <random@Domain> when empty.
	MessageID string
	// Domain is the right side of a generated MessageID; default: the
	// domain of From, else "localhost".
	Domain string
	// Draft composes a draft to store, not to send: Bcc is written in the
	// header (the blind copies must survive until the draft is sent, when
	// Raw removes them) and no recipient is required.
	Draft bool

	seed string // boundary seed, fixed by the first write
}

// Validate checks every header-bearing field (subject, names, addresses,
// message ids, domain, attachment names and types): a control character (CR,
// LF, NUL, ...) is ErrInvalidArgument naming the field. From and at least
// one recipient (To, Cc or Bcc) are required. All problems are reported.
func (m *Message) Validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if m.From.Email == "" {
		add(invalid("from", "required"))
	} else {
		add(m.From.check("from"))
	}
	if len(m.To)+len(m.Cc)+len(m.Bcc) == 0 && !m.Draft {
		add(invalid("to", "at least one recipient (to, cc or bcc) is required"))
	}
	add(checkList("to", m.To))
	add(checkList("cc", m.Cc))
	add(checkList("bcc", m.Bcc))
	add(checkList("reply_to", m.ReplyTo))
	add(checkText("subject", m.Subject))
	add(m.validateIDs())
	for i, a := range m.Attachments {
		add(a.check(fmt.Sprintf("attachments[%d]", i)))
	}
	return errors.Join(errs...)
}

// headerNeedsUTF8 reports an address in the header that is not ASCII: it
// is written as UTF-8 (RFC 6532), which only a server with SMTPUTF8 takes.
// Display names are RFC 2047-encoded and need nothing.
func (m *Message) headerNeedsUTF8() bool {
	for _, l := range [][]Address{{m.From}, m.To, m.Cc, m.ReplyTo} {
		for _, a := range l {
			if !isASCII(a.Email) {
				return true
			}
		}
	}
	return false
}

func (m *Message) validateIDs() error {
	var errs []error
	if m.InReplyTo != "" {
		errs = append(errs, checkMsgID("in_reply_to", m.InReplyTo))
	}
	for i, id := range m.References {
		errs = append(errs, checkMsgID(fmt.Sprintf("references[%d]", i), id))
	}
	if m.MessageID != "" {
		errs = append(errs, checkMsgID("message_id", m.MessageID))
	}
	if m.Domain != "" && !isDotAtom(m.Domain) {
		errs = append(errs, invalid("domain", "%q is not a domain", m.Domain))
	}
	return errors.Join(errs...)
}

// check validates an attachment.
func (a Attachment) check(field string) error {
	switch {
	case a.Filename == "":
		return invalid(field+".filename", "empty")
	case len(a.Filename) > maxFilename:
		return invalid(field+".filename", "longer than %d bytes", maxFilename)
	case a.Open == nil:
		return invalid(field+".open", "missing")
	case a.Size < 0:
		return invalid(field+".size", "negative")
	}
	if err := checkText(field+".filename", a.Filename); err != nil {
		return err
	}
	if err := checkText(field+".content_type", a.ContentType); err != nil {
		return err
	}
	if a.ContentType != "" {
		if _, _, err := mime.ParseMediaType(a.ContentType); err != nil {
			return invalid(field+".content_type", "%q: %v", a.ContentType, err)
		}
	}
	return nil
}

// ID returns the Message-ID without angle brackets, generating
// <random@Domain> first when MessageID is empty.
func (m *Message) ID() string {
	if m.MessageID == "" {
		m.MessageID = rand.Text() + "@" + m.domain()
	}
	return normalizeID(m.MessageID)
}

// domain is the right side of a generated Message-ID.
func (m *Message) domain() string {
	if m.Domain != "" {
		return m.Domain
	}
	if i := strings.LastIndexByte(m.From.Email, '@'); i >= 0 && isDotAtom(m.From.Email[i+1:]) {
		return strings.ToLower(m.From.Email[i+1:])
	}
	return "localhost"
}

// Envelope returns the SMTP envelope of m: From's address and every
// recipient of To, Cc and Bcc, repeated ones (by Key) dropped.
func (m *Message) Envelope() Envelope {
	env := Envelope{From: m.From.Email}
	seen := map[string]bool{}
	for _, list := range [][]Address{m.To, m.Cc, m.Bcc} {
		for _, a := range list {
			if k := Key(a.Email); !seen[k] {
				seen[k] = true
				env.To = append(env.To, a.Email)
			}
		}
	}
	return env
}

// prepare validates m and fixes what the first write decides.
func (m *Message) prepare() error {
	if err := m.Validate(); err != nil {
		return err
	}
	m.ID()
	if m.Date.IsZero() {
		m.Date = time.Now().Truncate(time.Second)
	}
	if m.seed == "" {
		m.seed = rand.Text()
	}
	return nil
}

// normalizeID strips spaces and one pair of angle brackets.
func normalizeID(id string) string {
	id = strings.TrimSpace(id)
	if strings.HasPrefix(id, "<") && strings.HasSuffix(id, ">") {
		id = id[1 : len(id)-1]
	}
	return id
}

// checkMsgID accepts a message id (with or without <>) that go-message reads
// back: dot-atom "@" (dot-atom or [literal]), ASCII only.
func checkMsgID(field, id string) error {
	if err := checkText(field, id); err != nil {
		return err
	}
	if !validMsgID(normalizeID(id)) {
		return invalid(field, "%q is not a message id (left@right)", id)
	}
	return nil
}

func validMsgID(id string) bool {
	at := strings.LastIndexByte(id, '@')
	if at <= 0 || len(id) > 250 {
		return false
	}
	left, right := id[:at], id[at+1:]
	if !isDotAtom(left) {
		return false
	}
	if strings.HasPrefix(right, "[") && strings.HasSuffix(right, "]") && len(right) > 2 {
		return !strings.ContainsAny(right[1:len(right)-1], "[]\\ ") && isPrintableASCII(right)
	}
	return isDotAtom(right)
}

// isDotAtom reports whether s is ASCII atext with single inner dots.
func isDotAtom(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAtext(s[i]) && s[i] != '.' {
			return false
		}
	}
	return true
}

// isAtext is RFC 5322 atext (ASCII).
func isAtext(c byte) bool {
	if c <= ' ' || c >= 0x7f {
		return false
	}
	return !strings.ContainsRune(`()<>[]:;@\,."`, rune(c))
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
