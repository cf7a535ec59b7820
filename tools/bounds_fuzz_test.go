package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/inboxtools"
	"github.com/email-mcp/email-mcp/message"
)

// jsonMax is the most JSON bytes a string of n characters (or bytes) can
// take: \u00XX escapes are 6 bytes, plus the quotes.
func jsonMax(n int) int { return 6*n + 2 }

// Upper bounds of one result's JSON, from the bounds of message alone:
// independent of the mail.
var (
	addressMax = jsonMax(message.MaxNameChars+message.MaxEmailBytes+3) + 1
	summaryMax = jsonMax(message.MaxSubjectChars) + addressMax*(1+message.MaxSummaryAddresses) +
		jsonMax(message.MaxIDBytes) + 1024 // the fixed keys and numbers
	readHeaderMax = jsonMax(message.MaxSubjectChars) + addressMax*(1+3*message.MaxAddresses) +
		jsonMax(message.MaxIDBytes)*(2+message.MaxReferences) + 2048
)

// hostileHeader is a header with a subject of subjLen copies of unit, a To
// list of toCount entries with names of nameLen copies of unit, and a
// References list of refCount ids of idLen bytes.
func hostileHeader(unit string, subjLen, toCount, nameLen, refCount, idLen int) []byte {
	var b strings.Builder
	fold := func(parts []string, sep string) string { return strings.Join(parts, sep+"\r\n ") }
	fmt.Fprintf(&b, "From: %s <from@example.test>\r\n", strings.Repeat(unit, nameLen))
	to := make([]string, toCount)
	for i := range to {
		to[i] = fmt.Sprintf("%s <p%d@example.test>", strings.Repeat(unit, nameLen), i)
	}
	fmt.Fprintf(&b, "To: %s\r\n", fold(to, ","))
	subj := make([]string, 0, subjLen/64+1)
	for n := subjLen; n > 0; n -= 64 {
		subj = append(subj, strings.Repeat(unit, min(n, 64)))
	}
	fmt.Fprintf(&b, "Subject: %s\r\n", fold(subj, ""))
	refs := make([]string, refCount)
	for i := range refs {
		refs[i] = fmt.Sprintf("<%d.%s@example.test>", i, strings.Repeat("r", idLen))
	}
	fmt.Fprintf(&b, "Message-ID: <%s@example.test>\r\nReferences: %s\r\n\r\nbody\r\n", strings.Repeat("m", idLen), fold(refs, ""))
	return []byte(b.String())
}

// FuzzResultBounds: whatever the sizes and counts of a mail's header
// fields, and whatever text they hold, the search summary, the inbox
// summary and read_email's header part stay within bounds computed from
// message's constants alone, and every cut is reported.
func FuzzResultBounds(f *testing.F) {
	f.Add("a", uint16(10), uint16(3), uint16(5), uint16(2), uint16(20))
	f.Add("Grüße ", uint16(5000), uint16(200), uint16(300), uint16(80), uint16(1200))
	f.Add("=?utf-8?q?=C3=BC?= ", uint16(2000), uint16(21), uint16(250), uint16(51), uint16(990))
	f.Add("<\"&>", uint16(1001), uint16(101), uint16(201), uint16(0), uint16(0))
	f.Fuzz(func(t *testing.T, unit string, subjLen, toCount, nameLen, refCount, idLen uint16) {
		if unit == "" || len(unit) > 32 || strings.ContainsAny(unit, "\r\n") {
			return
		}
		sl, tc, nl := int(subjLen%8192), int(toCount%400), int(nameLen%400)
		if len(unit)*(sl+tc*nl) > 256<<10 {
			return // cheap executions: the bounds are crossed well below this
		}
		raw := hostileHeader(unit, sl, tc, nl, int(refCount%200), int(idLen%1500))
		hdr, _ := message.ParseHeader(raw)
		s := summary(7, imap.Summary{UID: 1, Subject: hdr.Subject, MessageID: hdr.MessageID, From: toIMAP(hdr.From), To: toIMAP(hdr.To)})
		in := inboxtools.Head(7, 1, time.Unix(0, 0), hdr)
		rd := readResult("INBOX", &imap.Message{UID: 1, UIDValidity: 7}, hdr)
		for _, c := range []struct {
			name string
			v    any
			max  int
		}{{"search summary", s, summaryMax}, {"inbox summary", in, summaryMax}, {"read_email", rd, readHeaderMax}} {
			b, err := json.Marshal(c.v)
			if err != nil || len(b) > c.max {
				t.Fatalf("%s: %d bytes (err %v), bound %d", c.name, len(b), err, c.max)
			}
		}
		subjectCut := utf8.RuneCountInString(clean(hdr.Subject)) > message.MaxSubjectChars
		if s.SubjectTruncated != subjectCut || in.SubjectTruncated != subjectCut || rd.SubjectTruncated != subjectCut {
			t.Errorf("subject_truncated %v/%v/%v for %d characters", s.SubjectTruncated, in.SubjectTruncated, rd.SubjectTruncated, utf8.RuneCountInString(hdr.Subject))
		}
		checkList(t, "search to", len(s.To), s.ToTotal, len(toIMAP(hdr.To)), message.MaxSummaryAddresses)
		checkList(t, "inbox to", len(in.To), in.ToTotal, len(hdr.To), message.MaxSummaryAddresses)
		checkList(t, "read to", len(rd.To), rd.ToTotal, len(hdr.To), message.MaxAddresses)
		if len(rd.References) > message.MaxReferences || (rd.ReferencesTotal == nil) != (len(rd.References) == len(hdr.References)) {
			t.Errorf("references: %d kept of %d, total %v", len(rd.References), len(hdr.References), rd.ReferencesTotal)
		}
	})
}

// checkList: at most max entries kept, and a total exactly when some were
// left out.
func checkList(t *testing.T, name string, kept int, total *int, all, max int) {
	t.Helper()
	switch {
	case kept != min(all, max):
		t.Errorf("%s: %d entries kept of %d, want %d", name, kept, all, min(all, max))
	case (total != nil) != (all > max), total != nil && *total != all:
		t.Errorf("%s: total %v for %d entries (bound %d)", name, total, all, max)
	}
}

func toIMAP(l []message.Address) []imap.Address {
	var out []imap.Address
	for _, a := range l {
		if a.Email != "" {
			out = append(out, imap.Address{Name: a.Name, Email: a.Email})
		}
	}
	return out
}
