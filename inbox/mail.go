package inbox

import (
	"bytes"
	"net/mail"
	"time"

	"github.com/email-mcp/email-mcp/extract"
	"github.com/email-mcp/email-mcp/message"
)

// Mail is a message of a test inbox: where it is, when it arrived, its
// header, and (for list_messages and wait_for_email) what the extractors
// found in it.
type Mail struct {
	Validity, UID uint32
	// Arrived is the server's arrival time (INTERNALDATE).
	Arrived time.Time
	Header  message.Header
	// OTP is the likeliest code candidate, nil when there is none; it
	// counts as found from extract.FoundThreshold (FoundOTP).
	OTP *extract.OTP
	// Link is the best action link (never followed), "" when none.
	Link string
}

// FoundOTP is the code found in the message: OTP when its confidence
// reaches extract.FoundThreshold.
func (m *Mail) FoundOTP() (string, bool) {
	if m.OTP == nil || m.OTP.Confidence < extract.FoundThreshold {
		return "", false
	}
	return m.OTP.Code, true
}

// View turns a raw message into what the extractor reads, and its header.
func View(raw []byte) (extract.Message, message.Header) {
	p := parsed{raw: raw}
	return p.view(), p.header()
}

// parsed is one message, each part of it parsed at most once, when first
// asked for: a wait filters on the header and reads the body only for a
// match, and never parses either twice.
type parsed struct {
	raw    []byte
	hdr    *message.Header
	viewed *extract.Message
}

func (p *parsed) header() message.Header {
	if p.hdr == nil {
		h, _ := message.ParseHeader(p.raw)
		p.hdr = &h
	}
	return *p.hdr
}

func (p *parsed) view() extract.Message {
	if p.viewed == nil {
		b, _ := message.ParseBodies(p.raw)
		var headers map[string][]string
		if m, err := mail.ReadMessage(bytes.NewReader(p.raw)); err == nil {
			headers = map[string][]string(m.Header)
		}
		m := extract.MessageOf(p.header().Subject, headers, b)
		p.viewed = &m
	}
	return *p.viewed
}

// mail is the Mail of p, with the extractors' findings when extracts.
func (p *parsed) mail(validity, uid uint32, arrived time.Time, extracts bool) Mail {
	m := Mail{Validity: validity, UID: uid, Arrived: arrived, Header: p.header()}
	if !extracts {
		return m
	}
	view := p.view()
	if otps := extract.OTPs(view); len(otps) > 0 {
		m.OTP = &otps[0]
	}
	if l, ok := extract.BestLink(view); ok {
		m.Link = l.URL
	}
	return m
}
