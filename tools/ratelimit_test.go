package tools_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/auth"
	"github.com/email-mcp/email-mcp/tools"
)

// limitedEnv is a test env whose tool calls are limited per key by an
// auth.Limiter on a frozen clock: exactly burst calls pass, whatever the
// speed of the machine.
func limitedEnv(t *testing.T, perMinute int) *testEnv {
	t.Helper()
	at := time.Unix(1_700_000_000, 0)
	l := auth.NewLimiter(auth.LimiterOptions{PerMinute: perMinute, Now: func() time.Time { return at }})
	return newTestEnv(t, tools.Options{CallLimit: func(ctx context.Context) time.Duration {
		id, _ := auth.KeyID(ctx)
		return l.Take(id)
	}})
}

// rateLimited reports whether res is the RATE_LIMITED tool error with a
// positive retry_after_seconds.
func rateLimited(t *testing.T, res *mcp.CallToolResult) bool {
	t.Helper()
	var body struct {
		Error struct {
			Code       string `json:"code"`
			Retryable  bool   `json:"retryable"`
			RetryAfter int    `json:"retry_after_seconds"`
		} `json:"error"`
	}
	structured(t, res, &body)
	text := ""
	if len(res.Content) == 1 {
		text = res.Content[0].(mcp.TextContent).Text
	}
	return res.IsError && body.Error.Code == "RATE_LIMITED" && body.Error.Retryable && body.Error.RetryAfter >= 1 &&
		strings.HasPrefix(text, "RATE_LIMITED: ")
}

// TestCallLimitCountsToolCallsOnly: with a burst of 10, the handshake,
// tools/list and ping never use the budget, over Streamable HTTP and SSE;
// ten tool calls pass and the eleventh is a RATE_LIMITED tool result (not a
// transport error), with retry_after_seconds.
func TestCallLimitCountsToolCallsOnly(t *testing.T) {
	for _, tr := range []string{"http", "sse"} {
		t.Run(tr, func(t *testing.T) {
			env := limitedEnv(t, 1) // burst of 10, one more a minute
			var c *client.Client
			var err error
			if tr == "http" {
				c, err = client.NewStreamableHttpClient(env.http.URL+"/mcp", transport.WithHTTPHeaders(map[string]string{"X-API-Key": testKey}))
			} else {
				c, err = client.NewSSEMCPClient(env.http.URL+"/sse", transport.WithHeaders(map[string]string{"X-API-Key": testKey}))
			}
			if err != nil {
				t.Fatal(err)
			}
			initClient(t, c)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			for i := range 30 {
				if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
					t.Fatalf("tools/list %d = %v", i, err)
				}
				if err := c.Ping(ctx); err != nil {
					t.Fatalf("ping %d = %v", i, err)
				}
			}
			for i := range 10 {
				if res := callTool(t, c, "list_folders", nil); res.IsError {
					t.Fatalf("tool call %d after 30 tools/list and pings = %+v, want a result within the burst of 10", i, res.Content)
				}
			}
			if res := callTool(t, c, "list_folders", nil); !rateLimited(t, res) {
				t.Fatalf("tool call 11 = %+v %+v, want RATE_LIMITED with retry_after_seconds", res.Content, res.StructuredContent)
			}
		})
	}
}

// TestCallLimitREST: /mcp/call answers a limited call 200 with the
// RATE_LIMITED CallToolResult; /mcp/tools is never counted.
func TestCallLimitREST(t *testing.T) {
	env := limitedEnv(t, 1)
	for range 30 {
		restGet(t, env, "/mcp/tools", testKey, http.StatusOK)
	}
	limited := 0
	for i := range 15 {
		code, body := restDo(t, env, http.MethodPost, "/mcp/call", testKey, seedCall, nil)
		if code != http.StatusOK {
			t.Fatalf("POST /mcp/call %d = %d %s, want 200 (a tool result, never 429)", i, code, body)
		}
		var res mcp.CallToolResult
		if err := json.Unmarshal([]byte(body), &res); err != nil {
			t.Fatalf("body %s: %v", body, err)
		}
		if !res.IsError {
			continue
		}
		var sc map[string]any
		_ = json.Unmarshal([]byte(body), &sc)
		res.StructuredContent = sc["structuredContent"]
		if !rateLimited(t, &res) {
			t.Fatalf("call %d = %s, want RATE_LIMITED with retry_after_seconds", i, body)
		}
		limited++
	}
	if limited != 5 {
		t.Errorf("%d of 15 calls limited, want 5 (a burst of 10 after 30 uncounted tools/list)", limited)
	}
}
