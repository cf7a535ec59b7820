package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/tools/toolstest"
)

// awkward are texts that JSON escapes in every way it can: quotes,
// backslashes, HTML characters, control characters, U+2028/U+2029, invalid
// UTF-8, astral characters.
var awkward = []string{
	`"quoted" and \back\slashed\`, "<b>bold</b> & <script>", "tab\there\r\nnew line\x00nul\x1f",
	"line\u2028separator\u2029paragraph", "bad \xff\xfe utf-8", "emoji 📬 and Chloé", `\u0041 not an escape`,
	`"\u0000email-mcp-text:` + spliceNonce + `"`, // the placeholder itself, inside a subject
}

// TestSpliceMatchesMCPGo: an answer on /mcp, with the result spliced in, is
// byte for byte what mcp-go writes for the same call without the splice.
func TestSpliceMatchesMCPGo(t *testing.T) {
	page := toolstest.BenchPage(len(awkward) * 2)
	for i := range page.Messages {
		page.Messages[i].Subject = awkward[i%len(awkward)]
		page.Messages[i].From[0].Name = awkward[(i+1)%len(awkward)]
	}
	msg := toolstest.BenchMessage()
	msg.Raw = bytes.Replace(msg.Raw, []byte("Line 1 of"), []byte(strings.Join(awkward, " | ")), 1)
	mail := &toolstest.BenchMail{Page: page, Msg: msg}
	s, url := newBenchServerWith(t, mail)
	c := &http.Client{}
	for _, tc := range []struct{ tool, args string }{
		{"search_emails", `{"limit":50}`},
		{"search_emails", `{"limit":1,"subject":"x"}`},
		{"read_email", `{"uid":9990}`},
		{"read_email", `{"uid":"not-a-uid"}`}, // an error result: not spliced
		{"list_folders", `{}`},                // an error from the mailbox
	} {
		body := callBody(tc.tool, tc.args)
		got := postMCP(t, c, url, body)
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(s.MCP().HandleMessage(context.Background(), body)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s(%s) on /mcp =\n%s\nmcp-go writes\n%s", tc.tool, tc.args, got, want.Bytes())
		}
		if !json.Valid(got) {
			t.Errorf("%s(%s): invalid JSON", tc.tool, tc.args)
		}
	}
}

// TestAppendJSONText: the text content as encoding/json writes the string.
func TestAppendJSONText(t *testing.T) {
	for _, s := range append(awkward, "", `"`, `\`, `\\""`, "plain") {
		doc, err := json.Marshal(map[string]any{"s": s, "list": []string{s, s + s}, "n": 1})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(string(doc))
		if got := appendJSONText(nil, doc); !bytes.Equal(got, want) {
			t.Errorf("appendJSONText(%s) = %s, want %s", doc, got, want)
		}
	}
}

// TestSpliceSSEEvent: a result that goes out as an SSE event (the answer
// was upgraded for progress notifications) is spliced there too, once.
func TestSpliceSSEEvent(t *testing.T) {
	ctx, sp := withSplice(context.Background())
	result, err := json.Marshal(map[string]string{"a": `<"x"> \ &`})
	if err != nil {
		t.Fatal(err)
	}
	res := placeholderResult(ctx, result)
	if res == nil || placeholderResult(ctx, []byte(`{}`)) != nil {
		t.Fatal("placeholderResult: want one result per request")
	}
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "result": res})
	if err != nil {
		t.Fatal(err)
	}
	event := []byte("event: message\ndata: " + string(msg) + "\n\n")
	out, ok := sp.apply(event)
	plain, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7,
		"result": mcp.NewToolResultStructured(json.RawMessage(result), string(result))})
	if err != nil {
		t.Fatal(err)
	}
	if want := "event: message\ndata: " + string(plain) + "\n\n"; !ok || string(out) != want {
		t.Errorf("apply(event) = %q, %v; want %q", out, ok, want)
	}
	if _, ok := sp.apply(event); ok {
		t.Error("apply after the result was written: want nothing replaced")
	}
	if placeholderResult(context.Background(), []byte(`{}`)) != nil {
		t.Error("placeholderResult without a /mcp request: want nil")
	}
}

// TestSpliceConcurrentProgress: mcp-go's forwarder writes progress events
// on its own goroutine while the handler hands the result over; under
// -race the two must not race, and the answer still carries the result.
func TestSpliceConcurrentProgress(t *testing.T) {
	for range 50 {
		rec := httptest.NewRecorder()
		ctx, sp := withSplice(context.Background())
		w := &spliceWriter{ResponseWriter: rec, sp: sp}
		var wg sync.WaitGroup
		var res *mcp.CallToolResult
		wg.Go(func() { res = placeholderResult(ctx, []byte(`{"ok":true}`)) })
		wg.Go(func() {
			for range 20 {
				_, _ = w.Write([]byte("event: message\ndata: {\"method\":\"notifications/progress\"}\n\n"))
			}
		})
		wg.Wait()
		msg, err := json.Marshal(map[string]any{"id": 1, "result": res})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(msg); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(rec.Body.String(), `"structuredContent":{"ok":true}`) {
			t.Fatalf("answer = %.300s, want the result spliced in", rec.Body.String())
		}
	}
}
