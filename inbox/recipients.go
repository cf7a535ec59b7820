package inbox

import (
	"bytes"
	"net/mail"
	"strings"
	"sync"

	"github.com/email-mcp/email-mcp/imap"
)

// recipientFields are the header fields that say who a message was for.
var recipientFields = []string{"To", "Cc", "Delivered-To", "X-Original-To", "Envelope-To"}

// recipientsFor reports whether addr is one of the lower-cased recipient
// lines.
func recipientsFor(addr string, lines []string) bool {
	addr = strings.ToLower(addr)
	for _, v := range lines {
		if containsAddress(v, addr) {
			return true
		}
	}
	return false
}

// recipientLines parses raw's header and returns its recipient fields,
// lower-cased; none when the header does not parse.
func recipientLines(raw []byte) []string {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	var lines []string
	for _, f := range recipientFields {
		for _, v := range m.Header[f] {
			lines = append(lines, strings.ToLower(v))
		}
	}
	return lines
}

// isMailFor reports whether new mail from a watcher was addressed to addr,
// by its recipient header fields. One message is fanned out to every waiter
// on the folder; its header is parsed once for all of them (1,000 waiters
// used to parse it 1,000 times: most of the CPU and garbage of a busy wait).
func (ib *Inboxes) isMailFor(m *imap.NewMail, addr string) bool {
	return recipientsFor(addr, ib.recipients.lines(m))
}

// mailKey names one message of the account for good: folder, UIDVALIDITY
// and UID.
type mailKey struct {
	folder   string
	validity uint32
	uid      uint32
}

// recipientCache is a bounded map of recipient lines by message; the zero
// value is ready.
type recipientCache struct {
	mu sync.Mutex
	m  map[mailKey][]string
}

// maxRemembered bounds recipientCache and knownInboxes; past it the map
// starts over.
const maxRemembered = 4096

// lines returns m's recipient lines, parsing them on the first call.
func (c *recipientCache) lines(m *imap.NewMail) []string {
	k := mailKey{m.Folder, m.UIDValidity, m.UID}
	c.mu.Lock()
	l, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return l
	}
	l = recipientLines(m.Raw)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxRemembered {
		c.m = map[mailKey][]string{}
	}
	c.m[k] = l
	c.mu.Unlock()
	return l
}

// containsAddress finds addr in a header value as a whole address, not as
// the tail of a longer one (x+a@d must not match a@d... only bounded).
func containsAddress(v, addr string) bool {
	for i := 0; ; {
		j := strings.Index(v[i:], addr)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(addr)
		if (start == 0 || !isAddrChar(v[start-1])) && (end == len(v) || !isAddrChar(v[end])) {
			return true
		}
		i = start + 1
	}
}

func isAddrChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte(".+-_=@%!#$&'*/?^`{|}~", c) >= 0
}
