package extract_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset"
	"github.com/emersion/go-message/mail"

	"github.com/email-mcp/email-mcp/extract"
)

// corpusCase is one message of testdata/*.json (see testdata/README.md).
type corpusCase struct {
	ID      string                     `json:"id"`
	Subject string                     `json:"subject"`
	Text    string                     `json:"text"`
	HTML    string                     `json:"html"`
	MIME    string                     `json:"mime"`
	Headers map[string]json.RawMessage `json:"headers"`
	Expect  struct {
		Code *string `json:"code"`
		Raw  string  `json:"raw"`
		Link *string `json:"link"`
	} `json:"expect"`
	Note string `json:"note"`
}

// corpusFile is one file of cases.
type corpusFile struct {
	name  string
	cases []corpusCase
}

// loadCorpus reads every case of the files matching pattern in testdata.
func loadCorpus(t testing.TB, pattern string) []corpusFile {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("Glob(%q) = %v, %v; want files", pattern, files, err)
	}
	var out []corpusFile
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []corpusCase
		if err := json.Unmarshal(b, &cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, corpusFile{filepath.Base(f), cases})
	}
	return out
}

// message builds the Message of a case, MIME-decoding it when it has a raw
// message.
func (c corpusCase) message(t testing.TB) extract.Message {
	t.Helper()
	m := extract.Message{Subject: c.Subject, Text: c.Text, HTML: c.HTML, Headers: map[string][]string{}}
	if c.MIME != "" {
		m = decodeMIME(t, c.MIME)
	}
	for k, raw := range c.Headers {
		var one string
		var many []string
		if json.Unmarshal(raw, &one) == nil {
			many = []string{one}
		} else if err := json.Unmarshal(raw, &many); err != nil {
			t.Fatalf("%s: header %s: %v", c.ID, k, err)
		}
		key := textproto.CanonicalMIMEHeaderKey(k)
		m.Headers[key] = append(m.Headers[key], many...)
	}
	return m
}

// decodeMIME reads a raw message the way the mail adapter will: headers
// decoded, every text/plain and text/html part transfer- and
// charset-decoded.
func decodeMIME(t testing.TB, raw string) extract.Message {
	t.Helper()
	mr, err := mail.CreateReader(strings.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) {
		t.Fatalf("CreateReader: %v", err)
	}
	m := extract.Message{Headers: map[string][]string{}}
	m.Subject, _ = mr.Header.Subject()
	for f := mr.Header.Fields(); f.Next(); {
		key := textproto.CanonicalMIMEHeaderKey(f.Key())
		m.Headers[key] = append(m.Headers[key], f.Value())
	}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !message.IsUnknownCharset(err) {
			t.Fatalf("NextPart: %v", err)
		}
		h, ok := p.Header.(*mail.InlineHeader)
		if !ok {
			continue
		}
		ct, _, _ := h.ContentType()
		body, err := io.ReadAll(p.Body)
		if err != nil {
			t.Fatalf("read part: %v", err)
		}
		switch ct {
		case "text/plain":
			m.Text += string(body)
		case "text/html":
			m.HTML += string(body)
		}
	}
	return m
}

// tally counts outcomes for precision and recall: a true positive is the
// expected answer found; a false positive is an answer that is wrong or not
// expected; a false negative is an expected answer not found.
type tally struct{ tp, fp, fn int }

func (s *tally) add(want, got string, found bool) bool {
	switch {
	case found && got == want && want != "":
		s.tp++
		return true
	case found:
		s.fp++
		if want != "" {
			s.fn++
		}
		return false
	case want != "":
		s.fn++
		return false
	}
	return true
}

// ratios returns precision and recall; 1 where nothing was counted.
func (s tally) ratios() (precision, recall float64) {
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 1
		}
		return float64(a) / float64(b)
	}
	return ratio(s.tp, s.tp+s.fp), ratio(s.tp, s.tp+s.fn)
}

func (s tally) String() string {
	p, r := s.ratios()
	return fmt.Sprintf("precision %.3f recall %.3f (tp %d, fp %d, fn %d)", p, r, s.tp, s.fp, s.fn)
}

func TestCorpusOTP(t *testing.T) {
	var all tally
	for _, f := range loadCorpus(t, "otp*.json") {
		var st tally
		for _, c := range f.cases {
			m := c.message(t)
			got, found := extract.BestOTP(m)
			want := ""
			if c.Expect.Code != nil {
				want = *c.Expect.Code
			}
			ok := st.add(want, got.Code, found)
			all.add(want, got.Code, found)
			if !ok {
				t.Errorf("%s %s: BestOTP = %+v, %v; want %q (note: %s)\ncandidates: %+v",
					f.name, c.ID, got, found, want, c.Note, extract.OTPs(m))
			}
			if ok && found && c.Expect.Raw != "" && got.Raw != c.Expect.Raw {
				t.Errorf("%s %s: BestOTP().Raw = %q, want %q", f.name, c.ID, got.Raw, c.Expect.Raw)
			}
		}
		t.Logf("OTP %-16s %d cases: %v", f.name, len(f.cases), st)
	}
	t.Logf("OTP all: %v", all)
}

func TestCorpusLinks(t *testing.T) {
	var all tally
	for _, f := range loadCorpus(t, "links*.json") {
		var st tally
		for _, c := range f.cases {
			m := c.message(t)
			got, found := extract.BestLink(m)
			want := ""
			if c.Expect.Link != nil {
				want = *c.Expect.Link
			}
			all.add(want, got.URL, found)
			if !st.add(want, got.URL, found) {
				t.Errorf("%s %s: BestLink = %+v, %v; want %q (note: %s)\nlinks: %+v",
					f.name, c.ID, got, found, want, c.Note, extract.Links(m))
			}
			if want == "" && len(extract.Links(m)) != 0 {
				t.Errorf("%s %s: Links = %+v, want none", f.name, c.ID, extract.Links(m))
			}
		}
		t.Logf("links %-16s %d cases: %v", f.name, len(f.cases), st)
	}
	t.Logf("links all: %v", all)
}
