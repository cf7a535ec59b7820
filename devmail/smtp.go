package devmail

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/emersion/go-message/textproto"
	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
)

// smtpBackend accepts mail for any recipient into the account's INBOX.
type smtpBackend struct{ srv *Server }

// NewSession starts one SMTP transaction state per connection.
func (b smtpBackend) NewSession(c *gosmtp.Conn) (gosmtp.Session, error) {
	return &smtpSession{srv: b.srv, conn: c}, nil
}

// smtpSession is a catch-all SMTP session: any sender, any recipient, AUTH
// optional and accepted with any credentials.
type smtpSession struct {
	srv    *Server
	conn   *gosmtp.Conn
	from   string
	utf8   bool // MAIL FROM had SMTPUTF8
	rcpts  []string
	authed bool
}

var _ gosmtp.AuthSession = (*smtpSession)(nil)

// AuthMechanisms offers PLAIN and LOGIN: apps under test often insist on
// authenticating, and the sandbox accepts whatever they send.
func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain, sasl.Login} }

// Auth accepts any credentials.
func (s *smtpSession) Auth(mech string) (sasl.Server, error) {
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(_, _, _ string) error {
			s.authed = true
			return nil
		}), nil
	case sasl.Login:
		return &loginServer{done: func() { s.authed = true }}, nil
	}
	return nil, gosmtp.ErrAuthUnknownMechanism
}

// Mail records the envelope sender.
func (s *smtpSession) Mail(from string, opts *gosmtp.MailOptions) error {
	s.from = from
	s.utf8 = opts != nil && opts.UTF8
	return nil
}

// Rcpt accepts every recipient (go-smtp enforces MaxRecipients).
func (s *smtpSession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	s.rcpts = append(s.rcpts, to)
	return nil
}

// Data stores the message with Return-Path, Envelope-To and Received
// prepended; it returns only once the message is in INBOX (and on disk, with
// a DataDir), so the 250 reply means the mail is kept.
func (s *smtpSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err // ErrDataTooLarge answers 552
	}
	msg := prependTrace(raw, s.trace())
	if err := s.srv.deliver(context.Background(), msg); err != nil {
		s.srv.log.Warn("devmail: SMTP delivery failed", "err", err)
		return &gosmtp.SMTPError{
			Code:         451,
			EnhancedCode: gosmtp.EnhancedCode{4, 3, 0},
			Message:      "Delivery failed, try again later",
		}
	}
	return nil
}

// trace describes the transaction for the trace headers.
func (s *smtpSession) trace() traceInfo {
	proto := "ESMTP"
	if s.utf8 {
		proto = "UTF8SMTP" // RFC 6531 section 3.7.3
	}
	if _, ok := s.conn.TLSConnectionState(); ok {
		proto += "S"
	}
	if s.authed {
		proto += "A"
	}
	var ip string
	if addr, ok := s.conn.Conn().RemoteAddr().(*net.TCPAddr); ok {
		ip = addr.IP.String()
	}
	return traceInfo{
		returnPath: s.from,
		heloName:   s.conn.Hostname(),
		remoteIP:   ip,
		by:         s.srv.opts.Domain,
		proto:      proto,
		rcpts:      s.rcpts,
		when:       time.Now(),
	}
}

// Reset ends the transaction.
func (s *smtpSession) Reset() {
	s.from, s.utf8 = "", false
	s.rcpts = nil
}

// Logout ends the session.
func (s *smtpSession) Logout() error { return nil }

// loginServer is the server side of SASL LOGIN (go-sasl has only the client).
type loginServer struct {
	step int
	done func()
}

var errLoginSteps = errors.New("unexpected LOGIN response")

// Next asks for a username and a password and accepts whatever comes.
func (l *loginServer) Next(response []byte) (challenge []byte, done bool, err error) {
	l.step++
	switch {
	case l.step == 1 && response == nil:
		return []byte("Username:"), false, nil
	case l.step == 1:
		l.step++ // initial response carried the username
		return []byte("Password:"), false, nil
	case l.step == 2:
		return []byte("Password:"), false, nil
	case l.step == 3:
		l.done()
		return nil, true, nil
	}
	return nil, false, errLoginSteps
}

// traceInfo is what the trace headers say about one delivery.
type traceInfo struct {
	returnPath string // "" for Deliver: no Return-Path header
	heloName   string
	remoteIP   string
	by         string
	proto      string // ESMTP, ESMTPS, ESMTPA, ESMTPSA, or "local"
	rcpts      []string
	when       time.Time
}

// prependTrace puts Return-Path, Envelope-To (every envelope recipient, as
// Exim does, so Bcc'd test inboxes can be matched) and Received in front of
// raw, with raw's own line ending. If raw is empty or its header block does
// not parse ("From x" mbox lines, a first line without a colon), an empty
// line after the trace headers turns raw, byte for byte, into the body.
func prependTrace(raw []byte, t traceInfo) []byte {
	eol := lineEnding(raw)
	var b strings.Builder
	if t.returnPath != "" || t.proto != "local" {
		b.WriteString("Return-Path: <" + clean(t.returnPath) + ">" + eol)
	}
	if len(t.rcpts) > 0 {
		b.WriteString(foldList("Envelope-To", t.rcpts, eol))
	}
	b.WriteString(received(t, eol))
	msg := append([]byte(b.String()), raw...)
	// raw's own header block decides: one that starts with white space
	// parses only as a continuation of Received, glued onto our trace.
	if len(raw) == 0 || !headerParses(raw) {
		// imapserver serves an empty BODY[] for a header block it cannot
		// parse: end the header block here, so raw is kept as the body.
		msg = slices.Insert(msg, b.Len(), []byte(eol)...)
	}
	return msg
}

// headerParses reports whether go-message (and so imapserver's FETCH) can
// read the header block of msg.
func headerParses(msg []byte) bool {
	_, err := textproto.ReadHeader(bufio.NewReader(bytes.NewReader(msg)))
	return err == nil
}

func received(t traceInfo, eol string) string {
	from := clean(t.heloName)
	if from == "" {
		from = "localhost"
	}
	if t.remoteIP != "" {
		from += " ([" + t.remoteIP + "])"
	}
	lines := []string{
		"Received: from " + from,
		"\tby " + clean(t.by) + " (devmail) with " + t.proto + " id " + newID(),
	}
	if len(t.rcpts) == 1 {
		lines = append(lines, "\tfor <"+clean(t.rcpts[0])+">")
	}
	lines[len(lines)-1] += "; " + t.when.Format(time.RFC1123Z)
	return strings.Join(lines, eol) + eol
}

// foldList writes "Name: a, b, c" folded before 78 columns.
func foldList(name string, items []string, eol string) string {
	var b strings.Builder
	b.WriteString(name + ":")
	col := len(name) + 1
	for i, item := range items {
		item = clean(item)
		if i > 0 {
			b.WriteString(",")
			col++
		}
		if i > 0 && col+1+len(item) > 78 {
			b.WriteString(eol)
			col = 0
		}
		b.WriteString(" " + item)
		col += 1 + len(item)
	}
	return b.String() + eol
}

// lineEnding is CRLF unless raw's first line ends in a bare LF.
func lineEnding(raw []byte) string {
	for i, c := range raw {
		if c == '\n' {
			if i == 0 || raw[i-1] != '\r' {
				return "\n"
			}
			break
		}
	}
	return "\r\n"
}

// clean drops control characters so that nothing from the envelope can
// break a header line.
// clean drops control characters (no CR/LF can enter a trace header) and
// cuts s to maxTraceField bytes (RFC 5322 lines stay under 998: go-smtp
// takes HELO names and addresses of up to 2000).
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > maxTraceField {
		s = strings.ToValidUTF8(s[:maxTraceField], "")
	}
	return s
}

// maxTraceField bounds a HELO name or an address in a trace header: longer
// than any valid one (253, 254), short enough that no line nears 998.
const maxTraceField = 320

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
