package extract_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/net/html"

	"github.com/email-mcp/email-mcp/extract"
)

// seedCorpus adds every corpus message to a fuzz target's seeds.
func seedCorpus(f *testing.F) {
	f.Helper()
	for _, pattern := range []string{"otp*.json", "links*.json"} {
		for _, file := range loadCorpus(f, pattern) {
			for _, c := range file.cases {
				var unsub string
				if c.Headers != nil {
					unsub = string(c.Headers["List-Unsubscribe"])
				}
				f.Add(c.Subject, c.Text, c.HTML, strings.Trim(unsub, `"`))
			}
		}
	}
}

// FuzzOTP checks that every code comes from the message: its Raw occurs in
// the subject, the text, the HTML or the HTML's text, and its Code is Raw
// without separators (digits of other scripts read as ASCII).
func FuzzOTP(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, subject, text, htmlBody, _ string) {
		m := extract.Message{Subject: subject, Text: text, HTML: htmlBody}
		got := extract.OTPs(m)
		if again := extract.OTPs(m); !reflect.DeepEqual(got, again) {
			t.Fatalf("OTPs() not deterministic: %+v then %+v", got, again)
		}
		rendered := extract.HTMLToText(htmlBody)
		seen := map[string]bool{}
		for i, o := range got {
			if o.Raw == "" || !(strings.Contains(subject, o.Raw) || strings.Contains(text, o.Raw) ||
				strings.Contains(rendered, o.Raw) || strings.Contains(htmlBody, o.Raw)) {
				t.Errorf("OTPs()[%d].Raw = %q does not occur in the message", i, o.Raw)
			}
			if !codeMatchesRaw(o.Code, o.Raw) {
				t.Errorf("OTPs()[%d] = Code %q, Raw %q: code is not raw without separators", i, o.Code, o.Raw)
			}
			if o.Confidence < 0 || o.Confidence > 1 || i > 0 && o.Confidence > got[i-1].Confidence {
				t.Errorf("OTPs()[%d].Confidence = %v, want in [0,1], best first", i, o.Confidence)
			}
			if seen[o.Code] {
				t.Errorf("OTPs() lists %q twice", o.Code)
			}
			seen[o.Code] = true
		}
		best, found := extract.BestOTP(m)
		if found != (len(got) > 0 && got[0].Confidence >= extract.FoundThreshold) || found && best != got[0] {
			t.Errorf("BestOTP() = %+v, %v; inconsistent with OTPs() = %+v", best, found, got)
		}
	})
}

// codeMatchesRaw reports whether code is raw without spaces and dashes,
// where a decimal digit of any script may be written as its ASCII digit.
func codeMatchesRaw(code, raw string) bool {
	var rs []rune
	for _, r := range raw {
		if !unicode.IsSpace(r) && !strings.ContainsRune("-‐‑‒–−", r) {
			rs = append(rs, r)
		}
	}
	cs := []rune(code)
	if len(cs) != len(rs) || len(cs) == 0 {
		return false
	}
	for i, c := range cs {
		r := rs[i]
		if c == r {
			continue
		}
		// A digit of another script: its run of ten starts at r-value.
		if c < '0' || c > '9' || !unicode.IsDigit(r) || !unicode.IsDigit(r-(c-'0')) {
			return false
		}
	}
	return true
}

// FuzzLinks checks that every link is an http(s) URL that occurs in the
// message (entities decoded) or is the percent-decoded value of a parameter
// of such a URL, possibly through nested wrappers.
func FuzzLinks(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, subject, text, htmlBody, unsub string) {
		m := extract.Message{Subject: subject, Text: text, HTML: htmlBody,
			Headers: map[string][]string{"List-Unsubscribe": {unsub}}}
		got := extract.Links(m)
		if again := extract.Links(m); !reflect.DeepEqual(got, again) {
			t.Fatalf("Links() not deterministic: %+v then %+v", got, again)
		}
		hay := haystacks(text, htmlBody)
		for i, l := range got {
			u, err := url.Parse(l.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				t.Errorf("Links()[%d].URL = %q, want an http(s) URL", i, l.URL)
			}
			if !occurs(l.URL, hay) {
				t.Errorf("Links()[%d].URL = %q comes from nowhere in the message", i, l.URL)
			}
			if l.Score < extract.FoundThreshold || l.Score > 1 || i > 0 && l.Score > got[i-1].Score {
				t.Errorf("Links()[%d].Score = %v, want in [%v,1], best first", i, l.Score, extract.FoundThreshold)
			}
			switch l.Kind {
			case extract.KindVerify, extract.KindLogin, extract.KindReset, extract.KindConfirm, extract.KindMagic, extract.KindOther:
			default:
				t.Errorf("Links()[%d].Kind = %q", i, l.Kind)
			}
		}
	})
}

// haystacks returns the message's texts as a browser or reader would decode
// them (raw, entity-decoded, tokenized attributes and text, rendered), each
// without whitespace, which never belongs to a URL.
func haystacks(text, htmlBody string) []string {
	out := []string{text, htmlBody, html.UnescapeString(htmlBody), extract.HTMLToText(htmlBody)}
	z := html.NewTokenizer(strings.NewReader(htmlBody))
	var b, hrefs strings.Builder
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt == html.TextToken {
			b.Write(z.Text())
			continue
		}
		for more := tt == html.StartTagToken || tt == html.SelfClosingTagToken; more; {
			var val []byte
			_, val, more = z.TagAttr()
			b.Write(val)
			b.WriteByte(' ')
			// An href's inner spaces are percent-encoded, as a browser does.
			hrefs.WriteString(strings.ReplaceAll(strings.TrimSpace(string(val)), " ", "%20"))
			hrefs.WriteByte('\n')
		}
	}
	out = append(out, b.String(), hrefs.String())
	for i, s := range out {
		out[i] = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) }), "")
	}
	return out
}

// occurs reports whether u is in a haystack, or is a parameter value
// (percent-decoded up to three times) of a URL in one, up to three levels
// of nesting deep.
func occurs(u string, hay []string) bool {
	level := hay
	for range 4 {
		var next []string
		for _, h := range level {
			if strings.Contains(h, u) {
				return true
			}
			next = append(next, paramValues(h)...)
		}
		level = next
	}
	return false
}

// paramValues returns the value after every '=' of s (up to the next
// '&'), decoded once, twice and three times, in both percent-decoding
// flavours.
func paramValues(s string) []string {
	var out []string
	for i := strings.IndexByte(s, '='); i >= 0; {
		v, _, _ := strings.Cut(s[i+1:], "&")
		for range 3 {
			p, err1 := url.PathUnescape(v)
			q, err2 := url.QueryUnescape(v)
			if err1 == nil {
				out = append(out, p)
			}
			if err2 == nil && q != p {
				out = append(out, q)
			}
			if err1 != nil || p == v {
				break
			}
			v = p
		}
		next := strings.IndexByte(s[i+1:], '=')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return out
}
