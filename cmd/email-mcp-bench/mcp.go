package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// maxResponse bounds the body of one MCP response the client reads.
const maxResponse = 64 << 20

// mcpClient calls tools over MCP Streamable HTTP, stateless: one POST of a
// JSON-RPC tools/call per call, no initialize and no session, as the server
// allows. The answer is JSON, or an SSE stream (progress notifications
// first) that ends with the result.
type mcpClient struct {
	url, key string
	hc       *http.Client
	nextID   atomic.Int64
}

// newMCPClient returns a client with a keep-alive connection per worker:
// up to conns idle connections to the server are kept.
func newMCPClient(url, key string, conns int, timeout time.Duration) *mcpClient {
	tr := &http.Transport{
		Proxy:               nil, // loopback: never through a proxy
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        conns + 8,
		MaxIdleConnsPerHost: conns + 8,
		IdleConnTimeout:     90 * time.Second,
	}
	return &mcpClient{url: url, key: key, hc: &http.Client{Transport: tr, Timeout: timeout}}
}

// close drops the idle connections.
func (c *mcpClient) close() { c.hc.CloseIdleConnections() }

// toolResult is a CallToolResult, kept as it came.
type toolResult struct {
	raw json.RawMessage
}

// callError is a failed call, with the kind the Summary counts it under.
type callError struct {
	kind string
	msg  string
}

func (e *callError) Error() string { return e.kind + ": " + e.msg }

// errKind returns the kind of a call's error: "" for nil.
func errKind(err error) string {
	var ce *callError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ce):
		return ce.kind
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "transport"
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// call runs one tool. A result with isError is returned with a callError
// of kind tool_<CODE>.
func (c *mcpClient) call(ctx context.Context, tool string, args json.RawMessage) (*toolResult, error) {
	id := c.nextID.Add(1)
	body, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args},
	})
	if err != nil {
		return nil, &callError{"encode", err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, &callError{"request", err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-API-Key", c.key)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := readAnswer(resp, id)
	if err != nil {
		return nil, err
	}
	if r, ok := fastResult(raw, id); ok {
		return r, nil
	}
	return decodeAnswer(raw)
}

// fastResult recognises, without decoding it, the usual answer: a result
// for id, as mcp-go writes it ({"jsonrpc":"2.0","id":N,"result":...}),
// that is not an isError result. Decoding a 35 KB answer costs the bench
// client half a millisecond of the processor it shares with the server.
func fastResult(raw []byte, id int64) (*toolResult, bool) {
	prefix := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"result":`
	body, ok := bytes.CutPrefix(bytes.TrimSpace(raw), []byte(prefix))
	if !ok || !bytes.HasSuffix(body, []byte("}")) || bytes.Contains(body, []byte(`"isError":true`)) {
		return nil, false
	}
	return &toolResult{raw: body[:len(body)-1]}, true
}

// readAnswer returns the JSON-RPC message that answers id, from a JSON body
// or an SSE stream. A status other than 200 is a callError http_<status>.
func readAnswer(resp *http.Response, id int64) ([]byte, error) {
	body := io.LimitReader(resp.Body, maxResponse)
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, body)
		return nil, &callError{"http_" + strconv.Itoa(resp.StatusCode), resp.Status}
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "text/event-stream" {
		b, err := io.ReadAll(body)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	return readSSE(body, id)
}

// readSSE reads events until the one whose data is the answer to id
// (notifications before it are skipped).
func readSSE(r io.Reader, id int64) ([]byte, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxResponse)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
			continue
		}
		if len(line) != 0 || len(data) == 0 {
			continue
		}
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(data, &probe) == nil && string(probe.ID) == strconv.FormatInt(id, 10) {
			return data, nil
		}
		data = nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, &callError{"decode", "the event stream ended without the answer"}
}

// decodeAnswer turns a JSON-RPC response into a toolResult or a callError:
// jsonrpc_<code> for a protocol error, tool_<CODE> for an isError result.
// The result itself is kept raw: only a failed result is decoded further,
// so that the bench client spends little of the processor it shares with
// the server under test.
func decodeAnswer(raw []byte) (*toolResult, error) {
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		return nil, &callError{"decode", err.Error()}
	}
	switch {
	case msg.Error != nil:
		return nil, &callError{"jsonrpc_" + strconv.Itoa(msg.Error.Code), msg.Error.Message}
	case len(msg.Result) == 0 || bytes.Equal(msg.Result, []byte("null")):
		return nil, &callError{"decode", "no result and no error"}
	}
	r := &toolResult{raw: msg.Result}
	// "isError":true can only appear as a key of the result: inside a JSON
	// string its quotes are escaped.
	if !bytes.Contains(r.raw, []byte(`"isError":true`)) {
		return r, nil
	}
	return r, r.toolError()
}

// toolError is the callError of an isError result, or nil (a decode
// error when the result is not a CallToolResult).
func (r *toolResult) toolError() error {
	var res struct {
		IsError    bool            `json:"isError"`
		Structured json.RawMessage `json:"structuredContent"`
		Content    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(r.raw, &res); err != nil {
		return &callError{"decode", err.Error()}
	}
	if !res.IsError {
		return nil
	}
	text := ""
	for _, c := range res.Content {
		if c.Type == "text" {
			text = c.Text
			break
		}
	}
	return &callError{"tool_" + errorCode(res.Structured, text), text}
}

// errorCode is the code of an isError result: structuredContent.error.code,
// else the text before ": ".
func errorCode(structured json.RawMessage, text string) string {
	var s struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(structured, &s) == nil && s.Error.Code != "" {
		return s.Error.Code
	}
	if code, _, ok := strings.Cut(text, ": "); ok && code != "" && !strings.ContainsAny(code, " \n") {
		return code
	}
	return "UNKNOWN"
}

// structured decodes the result's structuredContent into v.
func (r *toolResult) structured(v any) error {
	var res struct {
		Structured json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(r.raw, &res); err != nil {
		return err
	}
	if len(res.Structured) == 0 {
		return fmt.Errorf("no structuredContent")
	}
	return json.Unmarshal(res.Structured, v)
}
