package extract

import (
	"slices"
	"strings"

	"github.com/email-mcp/email-mcp/message"
)

// FoundThreshold is the confidence (for codes) or score (for links) from
// which a candidate counts as found: BestOTP and BestLink report nothing
// weaker, and Links returns nothing weaker.
const FoundThreshold = 0.5

// Message is the decoded content of one e-mail, as the extractors read it.
type Message struct {
	Subject string              // decoded Subject header
	Text    string              // decoded text/plain body
	HTML    string              // decoded text/html body (entities as sent)
	Headers map[string][]string // more header fields, canonical MIME keys, e.g. "List-Unsubscribe"
}

// MessageOf is the Message of a mail decoded by message.ParseBodies: the
// extractors get the HTML alone when the text is only its rendering for
// people (Bodies.TextFromHTML), since they render the HTML themselves,
// leaving out the quoted history that a copy for people brings back, and
// would read every link twice. The waits (package inbox) and the tests of
// the corpus of real mail decode with it, so what is measured is what is
// served.
func MessageOf(subject string, headers map[string][]string, b message.Bodies) Message {
	text := b.Text
	if b.TextFromHTML {
		text = ""
	}
	return Message{Subject: subject, Text: text, HTML: b.HTML, Headers: headers}
}

// header returns the values of the header field key. Keys are matched
// case-insensitively, in sorted order so that the result is deterministic.
func (m Message) header(key string) []string {
	var keys []string
	for k := range m.Headers {
		if strings.EqualFold(k, key) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var vals []string
	for _, k := range keys {
		vals = append(vals, m.Headers[k]...)
	}
	return vals
}
