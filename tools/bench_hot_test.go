package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/auth"
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
)

// Benchmarks of the tool layer alone: a fake Mailbox answers at once, so
// what is measured is what email-mcp adds to the IMAP work (arguments,
// page building, message decoding, JSON, HTTP). Run with -benchmem:
//
//	go test ./tools -run '^$' -bench Hot -benchmem
//
// Compare with the IMAP side in cmd/email-mcp-bench (raw mode).

// benchMail is a Mailbox with canned answers: a 10,000-message INBOX whose
// newest page and one message it knows.
type benchMail struct {
	page *imap.SearchResult
	msg  *imap.Message
}

var errBenchUnsupported = errors.New("bench: not supported")

func (b *benchMail) ListFolders(context.Context, bool) ([]imap.Folder, error) {
	return nil, errBenchUnsupported
}

func (b *benchMail) Search(_ context.Context, _ string, _ imap.SearchCriteria, p imap.PageRequest) (*imap.SearchResult, error) {
	res := *b.page
	res.Messages = res.Messages[:min(p.Limit, len(res.Messages))]
	return &res, nil
}

func (b *benchMail) FetchMessage(context.Context, string, uint32, int64) (*imap.Message, error) {
	return b.msg, nil
}

// ReadMessage decodes the canned message as imap.Client.ReadMessage does
// once it has fetched it: the decoding stays in what is measured.
func (b *benchMail) ReadMessage(context.Context, string, uint32, imap.ReadOptions) (*imap.Display, error) {
	return b.msg.Display(), nil
}

func (b *benchMail) Bodies(context.Context, string, *imap.Message, int64) (message.Bodies, bool, error) {
	return message.Bodies{}, false, errBenchUnsupported
}

func (b *benchMail) StreamPart(context.Context, string, uint32, []int, io.Writer) (int64, error) {
	return 0, errBenchUnsupported
}

func (b *benchMail) SetFlags(context.Context, string, []uint32, imap.FlagChange) (map[uint32][]string, error) {
	return nil, errBenchUnsupported
}

func (b *benchMail) Move(context.Context, string, uint32, string) (uint32, error) {
	return 0, errBenchUnsupported
}

func (b *benchMail) UIDValidity(context.Context, string) (uint32, error) { return 1796000810, nil }

// benchPage is the newest page of a seeded INBOX (scripts/dovecot/seed.py
// style): names with accents, RFC 2047 subjects already decoded, flags,
// one in six with an attachment.
func benchPage(n int) *imap.SearchResult {
	names := []imap.Address{{Name: "Alice Martin", Email: "alice@example.test"}, {Name: "Chloé Bernard", Email: "chloe@example.org"},
		{Name: "GitHub", Email: "notifications@example.com"}, {Name: "Billing", Email: "billing@shop.example"}}
	subjects := []string{"Quarterly report draft", "Re: lunch on Thursday?", "Your invoice #%d", "Réunion de l'équipe — ordre du jour", "Build #%d failed on main"}
	res := &imap.SearchResult{Folder: "INBOX", UIDValidity: 1796000810, Total: 10000, NextBeforeUID: uint32(10001 - n)}
	date := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for i := range n {
		uid := uint32(10000 - i)
		flags := []string{`\Seen`}
		if i%10 == 3 {
			flags = append(flags, `\Flagged`)
		}
		res.Messages = append(res.Messages, imap.Summary{
			UID: uid, MessageID: fmt.Sprintf("seed-%d-273716581@example.test", uid),
			Subject: strings.ReplaceAll(subjects[i%len(subjects)], "%d", fmt.Sprint(uid)),
			From:    []imap.Address{names[i%len(names)]}, To: []imap.Address{{Name: "Bob Durand", Email: "bob@example.test"}},
			Date: date.Add(-time.Duration(i) * time.Hour), InternalDate: date, Flags: flags,
			Seen: true, Flagged: i%10 == 3, HasAttachments: i%6 == 0, Size: int64(1500 + 37*i),
		})
	}
	return res
}

// benchMessage is a 6 KB multipart/alternative mail, whole.
func benchMessage() *imap.Message {
	var text, html strings.Builder
	for i := range 40 {
		fmt.Fprintf(&text, "Line %d of the report: the numbers for the quarter are attached, please review before Friday.\r\n", i)
		fmt.Fprintf(&html, "<p>Line %d of the report: the <b>numbers</b> for the quarter are <a href=\"https://example.test/r/%d\">here</a>.</p>\r\n", i, i)
	}
	raw := "From: \"Chloé Bernard\" <chloe@example.org>\r\nTo: Bob Durand <bob@example.test>\r\nCc: alice@example.test\r\n" +
		"Subject: =?UTF-8?B?UsOpdW5pb24gZGUgbCfDqXF1aXBl?=\r\nDate: Mon, 02 Mar 2026 09:00:00 +0000\r\n" +
		"Message-ID: <seed-9990@example.test>\r\nIn-Reply-To: <seed-9989@example.test>\r\nReferences: <seed-9988@example.test> <seed-9989@example.test>\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"alt\"\r\n\r\n" +
		"--alt\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + text.String() +
		"--alt\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body>" + html.String() + "</body></html>\r\n--alt--\r\n"
	st := &imap.Part{Type: "multipart", Subtype: "alternative", Children: []*imap.Part{
		{Path: []int{1}, Type: "text", Subtype: "plain", Params: map[string]string{"charset": "utf-8"}, Encoding: "7bit", Size: int64(text.Len())},
		{Path: []int{2}, Type: "text", Subtype: "html", Params: map[string]string{"charset": "utf-8"}, Encoding: "7bit", Size: int64(html.Len())},
	}}
	return &imap.Message{UID: 9990, UIDValidity: 1796000810, Flags: []string{`\Seen`}, InternalDate: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC),
		Size: int64(len(raw)), Structure: st, Raw: []byte(raw), Complete: true}
}

const benchKey = "bench-key-0123456789abcdef"

// newBenchServer is the tools over benchMail, with the HTTP endpoints
// behind the API-key middleware on a loopback httptest server.
func newBenchServer(tb testing.TB) (*Server, string) {
	tb.Helper()
	return newBenchServerWith(tb, &benchMail{page: benchPage(200), msg: benchMessage()})
}

// newBenchServerWith is newBenchServer over mail.
func newBenchServerWith(tb testing.TB, mail Mailbox) (*Server, string) {
	tb.Helper()
	s, err := New(Deps{Mail: mail}, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	mw, err := auth.New(auth.Options{Keys: []string{benchKey}})
	if err != nil {
		tb.Fatal(err)
	}
	h, err := s.Handler(HTTPOptions{Auth: mw})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return s, srv.URL + "/mcp"
}

// callBody is a JSON-RPC tools/call request.
func callBody(tool, args string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)
}

// postMCP sends body to url as a stateless Streamable HTTP client does and
// returns the answer.
func postMCP(tb testing.TB, c *http.Client, url string, body []byte) []byte {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-API-Key", benchKey)
	resp, err := c.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("POST /mcp = %d, %v: %.200s", resp.StatusCode, err, b)
	}
	return b
}

// TestHotBenchServer checks that the benchmarks below measure successful
// calls (and the one failing call they mean to measure).
func TestHotBenchServer(t *testing.T) {
	_, url := newBenchServer(t)
	c := &http.Client{}
	for _, tc := range []struct {
		tool, args, want string
	}{
		{"search_emails", `{"limit":50}`, `"uid":9951,`},
		{"read_email", `{"uid":9990}`, `Line 39 of the report`},
		{"read_email", `{"uid":"not-a-uid"}`, `INVALID_ARGUMENT`},
	} {
		got := string(postMCP(t, c, url, callBody(tc.tool, tc.args)))
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s(%s) = %.300s, want it to contain %q", tc.tool, tc.args, got, tc.want)
		}
	}
}

// BenchmarkHotSearchPage: search_emails with a page of 50, in process
// (HandleMessage and the JSON of the answer, as the transport writes it).
func BenchmarkHotSearchPage(b *testing.B) {
	s, _ := newBenchServer(b)
	body := callBody("search_emails", `{"limit":50}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(s.mcp.HandleMessage(ctx, body)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHotHTTP: one call through the whole HTTP stack (client,
// net/http, API key, body limit, mcp-go Streamable HTTP, the tool, JSON).
func BenchmarkHotHTTP(b *testing.B) {
	for _, bc := range []struct{ name, tool, args string }{
		{"search_emails-50", "search_emails", `{"limit":50}`},
		{"read_email-6KB", "read_email", `{"uid":9990}`},
		{"no-io-bad-uid", "read_email", `{"uid":"not-a-uid"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			_, url := newBenchServer(b)
			c := &http.Client{}
			body := callBody(bc.tool, bc.args)
			b.ReportAllocs()
			for b.Loop() {
				postMCP(b, c, url, body)
			}
		})
	}
}

// BenchmarkHotResultJSON: the answer to a search of 50, encoded as mcp-go
// does it on stdio and SSE (the result marshalled for the text content,
// then again by reflection as structuredContent), against passing the
// text's bytes as structuredContent (json.RawMessage: slower, encoding/json
// compacts it again), against /mcp's splice and against a short text
// content.
func BenchmarkHotResultJSON(b *testing.B) {
	out, err := searchEmails(context.Background(), &benchMail{page: benchPage(50)}, searchArgs{}, 50)
	if err != nil {
		b.Fatal(err)
	}
	encode := func(b *testing.B, res func(text []byte) *mcp.CallToolResult) {
		b.ReportAllocs()
		for b.Loop() {
			text, err := json.Marshal(out)
			if err != nil {
				b.Fatal(err)
			}
			resp := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(1), res(text))
			if _, err := json.Marshal(resp); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("struct-twice", func(b *testing.B) {
		encode(b, func(text []byte) *mcp.CallToolResult { return mcp.NewToolResultStructured(out, string(text)) })
	})
	b.Run("raw-message", func(b *testing.B) {
		encode(b, func(text []byte) *mcp.CallToolResult {
			return mcp.NewToolResultStructured(json.RawMessage(text), string(text))
		})
	})
	// What /mcp does (splice.go): placeholders through mcp-go, the bytes
	// put in their place as the answer is written.
	b.Run("splice", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			text, err := json.Marshal(out)
			if err != nil {
				b.Fatal(err)
			}
			ctx, sp := withSplice(context.Background())
			resp := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(1), placeholderResult(ctx, text))
			msg, err := json.Marshal(resp)
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := sp.apply(msg); !ok {
				b.Fatal("nothing spliced")
			}
		}
	})
	// A one-line text instead of the JSON again (what dropping the
	// duplicate would save; clients that read only text would lose data).
	b.Run("short-text", func(b *testing.B) {
		encode(b, func([]byte) *mcp.CallToolResult {
			return mcp.NewToolResultStructured(out, "50 of 10000 messages in INBOX, newest first")
		})
	})
}
