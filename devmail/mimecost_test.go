package devmail_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/email-mcp/email-mcp/devmail"
	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// nestedMail is a mail of message/rfc822 parts nested depth deep (about 95
// bytes a level: 8,000 levels make the 757 KB), or of
// multipart/mixed parts nested depth deep, with "424242" at the bottom.
func nestedMail(kind string, depth int) []byte {
	var b bytes.Buffer
	b.WriteString("From: app@x.test\r\nTo: u@x.test\r\nSubject: nested\r\nMessage-ID: <nested@x.test>\r\n")
	switch kind {
	case "rfc822":
		for i := range depth {
			fmt.Fprintf(&b, "Content-Type: message/rfc822\r\n\r\nFrom: level%d@x.test\r\nSubject: level %d of the nesting\r\n", i, i)
		}
		b.WriteString("\r\ncode 424242\r\n")
	case "multipart":
		for i := range depth {
			fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n", i, i)
		}
		b.WriteString("Content-Type: text/plain\r\n\r\ncode 424242\r\n")
		for i := depth - 1; i >= 0; i-- {
			fmt.Fprintf(&b, "--b%d--\r\n", i)
		}
	}
	return b.Bytes()
}

// nestedQueries is what search_emails and read_email ask of such a mail:
// SEARCH TEXT and HEADER, FETCH ENVELOPE and BODYSTRUCTURE, and BODY[1].
func nestedQueries(c *imapclient.Client) (found int, bs imap.BodyStructure, err error) {
	sd, err := c.UIDSearch(&imap.SearchCriteria{Text: []string{"424242"}}, nil).Wait()
	if err != nil {
		return 0, nil, err
	}
	if _, err := c.UIDSearch(&imap.SearchCriteria{Header: []imap.SearchCriteriaHeaderField{{Key: "Subject", Value: "nested"}}}, nil).Wait(); err != nil {
		return 0, nil, err
	}
	msgs, err := c.Fetch(imap.UIDSetNum(1), &imap.FetchOptions{
		UID: true, Envelope: true, BodyStructure: &imap.FetchItemBodyStructure{Extended: true},
		BodySection: []*imap.FetchItemBodySection{{Part: []int{1}, Peek: true, Partial: &imap.SectionPartial{Size: 4096}}},
	}).Collect()
	if err != nil || len(msgs) != 1 {
		return 0, nil, fmt.Errorf("fetch: %d messages, %v", len(msgs), err)
	}
	return len(sd.AllUIDs()), msgs[0].BodyStructure, nil
}

func nestedServer(t testing.TB, raw []byte) *imapclient.Client {
	s, err := devmail.Start(context.Background(), devmail.Options{IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Password: testPassword})
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Deliver(context.Background(), raw, []string{"u@x.test"}); err != nil {
		t.Fatalf("Deliver() = %v", err)
	}
	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Login(s.Username(), testPassword).Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	return c
}

// bsDepth is how deep a BODYSTRUCTURE nests, message/rfc822 included.
func bsDepth(bs imap.BodyStructure) int {
	switch bs := bs.(type) {
	case *imap.BodyStructureMultiPart:
		d := 0
		for _, c := range bs.Children {
			d = max(d, bsDepth(c))
		}
		return d + 1
	case *imap.BodyStructureSinglePart:
		if bs.MessageRFC822 != nil {
			return bsDepth(bs.MessageRFC822.BodyStructure) + 1
		}
	}
	return 1
}

// TestNestedMailCostLinear delivers mail nested 1,000 to 8,000 deep (both
// kinds) and asks what the tools ask. The answers stay bounded (the
// BODYSTRUCTURE nests at most about devmail's bound of 100 levels, the
// deep code is still found) and the bytes allocated for them grow at most
// linearly with the size of the mail: 8 times the depth may cost at most
// 12 times the bytes (quadratic work would cost 64 times).
func TestNestedMailCostLinear(t *testing.T) {
	for _, kind := range []string{"rfc822", "multipart"} {
		var first float64
		for _, depth := range []int{1000, 2000, 4000, 8000} {
			raw := nestedMail(kind, depth)
			c := nestedServer(t, raw)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			found, bs, err := nestedQueries(c)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatalf("%s %d: %v", kind, depth, err)
			}
			if found != 1 {
				t.Errorf("%s %d: SEARCH TEXT 424242 found %d, want 1", kind, depth, found)
			}
			if d := bsDepth(bs); d > 105 {
				t.Errorf("%s %d: BODYSTRUCTURE nests %d deep, want it bounded (about 100)", kind, depth, d)
			}
			perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(raw))
			t.Logf("%s depth %d (%d KB): %.0f KB allocated, %.1f bytes per byte of mail", kind, depth, len(raw)>>10,
				float64(after.TotalAlloc-before.TotalAlloc)/1024, perByte)
			if first == 0 {
				first = perByte
			} else if perByte > 1.5*first {
				t.Errorf("%s depth %d: %.1f bytes allocated per byte of mail, at depth 1000 %.1f: more than linear",
					kind, depth, perByte, first)
			}
		}
	}
}

// BenchmarkNestedMail is one round of nestedQueries on the mail
// (message/rfc822 nested 8,000 deep, 757 KB) and on multipart nested as
// deep.
func BenchmarkNestedMail(b *testing.B) {
	for _, kind := range []string{"rfc822", "multipart"} {
		for _, depth := range []int{1000, 8000} {
			b.Run(fmt.Sprintf("%s-%d", kind, depth), func(b *testing.B) {
				raw := nestedMail(kind, depth)
				c := nestedServer(b, raw)
				b.SetBytes(int64(len(raw)))
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := nestedQueries(c); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
