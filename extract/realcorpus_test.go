package extract_test

import (
	"bytes"
	"flag"
	"fmt"
	"net/mail"
	"os"
	"path/filepath"
	"testing"

	"github.com/email-mcp/email-mcp/extract"
	"github.com/email-mcp/email-mcp/internal/realcorpus"
	"github.com/email-mcp/email-mcp/message"
)

func loadRealCorpus(t *testing.T) []realcorpus.Case {
	t.Helper()
	cases, err := realcorpus.Load(filepath.Join("testdata", "real"))
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// served decodes a message as the server does before its waits run the
// extractors (package inbox: message.ParseBodies, then MessageOf), so that
// the figures are those of the binary: format=flowed joined, charsets and
// transfer encodings as message reads them.
func served(raw []byte) extract.Message {
	b, _ := message.ParseBodies(raw)
	h, _ := message.ParseHeader(raw)
	var headers map[string][]string
	if m, err := mail.ReadMessage(bytes.NewReader(raw)); err == nil {
		headers = map[string][]string(m.Header)
	}
	return extract.MessageOf(h.Subject, headers, b)
}

// blindDetail prints the misses of the blind set. Off by default: the
// blind set is measured, never tuned on, so its cases stay unread.
var blindDetail = flag.Bool("blind-detail", false, "list the misses of the blind set of testdata/real")

// realSplits are the sets of testdata/real, reported apart: "tune" is tuned
// on; "blind" is a batch built from projects not yet in the corpus by
// engineers who did not tune the extractor, measured once and only then
// tuned on (each round's figures are in README.md).
var realSplits = []string{"tune", "blind"}

// Goals of issue 13, for codes and links alike.
const (
	goalPrecision = 0.98
	goalRecall    = 0.97
)

// TestRealCorpus measures precision and recall, OTP and link, on each set
// of the corpus of real templates (go test ./extract -run TestRealCorpus -v).
// Every miss of the tune half fails the test. The blind set is never tuned
// on: its figures are reported against the goals of issue 13, and its
// misses are listed only with -blind-detail.
func TestRealCorpus(t *testing.T) {
	cases := loadRealCorpus(t)
	otp, link, count := map[string]*tally{}, map[string]*tally{}, map[string]int{}
	for _, split := range realSplits {
		otp[split], link[split] = &tally{}, &tally{}
	}
	for _, c := range cases {
		if c.Source.Repo == "" || c.Source.Path == "" || c.Source.Commit == "" && c.Source.Version == "" {
			t.Errorf("%s: source must name repo, path and commit or version", c.File)
		}
		st, ok := otp[c.Split]
		if !ok {
			t.Fatalf("%s: split %q, want one of %v", c.File, c.Split, realSplits)
		}
		count[c.Split]++
		raw, err := os.ReadFile(filepath.Join("testdata", "real", c.File))
		if err != nil {
			t.Fatal(err)
		}
		m := served(raw)
		want := c.Code()
		missed := false
		miss := func(format string, args ...any) {
			missed = true
			switch {
			case c.Split == "tune" && c.Miss != "":
				t.Logf("%s (known miss: %s): %s", c.File, c.Miss, fmt.Sprintf(format, args...))
			case c.Split == "tune":
				t.Errorf("%s: %s", c.File, fmt.Sprintf(format, args...))
			case *blindDetail:
				t.Logf("%s %s: %s", c.Split, c.File, fmt.Sprintf(format, args...))
			}
		}
		got, found := extract.BestOTP(m)
		if !st.add(want, got.Code, found) {
			miss("BestOTP = %+v, %v; want %q\ncandidates: %+v", got, found, want, extract.OTPs(m))
		} else if found && c.Expect.Raw != "" && got.Raw != c.Expect.Raw {
			miss("BestOTP().Raw = %q, want %q", got.Raw, c.Expect.Raw)
		}
		wantLink := c.Link()
		l, found := extract.BestLink(m)
		if !link[c.Split].add(wantLink, l.URL, found) {
			miss("BestLink = %+v, %v; want %q\nlinks: %+v", l, found, wantLink, extract.Links(m))
		}
		if c.Miss != "" && !missed {
			t.Errorf("%s: marked as a known miss (%s) but found: remove the mark", c.File, c.Miss)
		}
	}
	for _, split := range realSplits {
		if count[split] == 0 {
			t.Logf("%-7s no cases", split)
			continue
		}
		t.Logf("%-7s OTP:  %v", split, otp[split])
		t.Logf("%-7s link: %v", split, link[split])
	}
	for _, split := range realSplits {
		if count[split] == 0 {
			continue
		}
		for _, st := range []struct {
			what string
			t    *tally
		}{{"OTP", otp[split]}, {"link", link[split]}} {
			if p, r := st.t.ratios(); p < goalPrecision || r < goalRecall {
				t.Logf("%s %s below the goal (precision >= %.2f, recall >= %.2f)", split, st.what, goalPrecision, goalRecall)
			}
		}
	}
}
