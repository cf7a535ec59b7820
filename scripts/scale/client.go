package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// callsMade counts every tool call the driver makes.
var callsMade atomic.Int64

// client calls tools over POST /mcp/call through one base URL (the load
// balancer), with the public Host name the proxy must pass on.
type client struct {
	base string
	host string
	key  string
	http *http.Client
}

func newClient(base, host, key string, local net.IP) *client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if local != nil {
		d.LocalAddr = &net.TCPAddr{IP: local}
	}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         d.DialContext,
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 1024,
		IdleConnTimeout:     30 * time.Second,
	}
	return &client{base: base, host: host, key: key, http: &http.Client{Transport: tr}}
}

// outcome is what one call came back with: "ok", a tool error code, an
// HTTP status (HTTP_502), or a transport failure (TRANSPORT).
type outcome struct {
	Kind       string
	Result     map[string]any // structuredContent of a success
	Retryable  bool
	NextSince  string
	RetryAfter float64
	Elapsed    time.Duration
	Upstream   string // the replica nginx chose (X-Upstream), when known
}

func (o outcome) ok() bool { return o.Kind == "ok" }

// call runs one tool through /mcp/call within d.
func (c *client) call(ctx context.Context, d time.Duration, name string, args map[string]any) outcome {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	callsMade.Add(1)
	o := c.do(ctx, name, args)
	o.Elapsed = time.Since(start)
	return o
}

func (c *client) do(ctx context.Context, name string, args map[string]any) outcome {
	body, _ := json.Marshal(map[string]any{"method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/mcp/call", bytes.NewReader(body))
	if err != nil {
		return outcome{Kind: "TRANSPORT"}
	}
	req.Host = c.host
	req.Header.Set("X-API-Key", c.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return outcome{Kind: "HUNG"}
		}
		return outcome{Kind: "TRANSPORT"}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return outcome{Kind: "TRANSPORT"}
	}
	o := c.decode(resp.StatusCode, raw)
	o.Upstream = resp.Header.Get("X-Upstream")
	return o
}

// decode reads a /mcp/call answer.
func (c *client) decode(status int, raw []byte) outcome {
	if status != http.StatusOK {
		return outcome{Kind: fmt.Sprintf("HTTP_%d", status)}
	}
	var res struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return outcome{Kind: "BAD_JSON"}
	}
	if !res.IsError {
		return outcome{Kind: "ok", Result: res.StructuredContent}
	}
	e, _ := res.StructuredContent["error"].(map[string]any)
	o := outcome{Kind: "NO_CODE"}
	if code, _ := e["code"].(string); code != "" {
		o.Kind = code
	}
	o.Retryable, _ = e["retryable"].(bool)
	o.NextSince, _ = e["next_since"].(string)
	o.RetryAfter, _ = e["retry_after_seconds"].(float64)
	return o
}

// str reads a string key of a result.
func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}
