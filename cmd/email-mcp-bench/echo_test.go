package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEcho: the echo server answers the load client's calls with a result
// of the asked size (its text and structuredContent the same JSON), refuses
// a wrong key, and counts what it answered.
func TestEcho(t *testing.T) {
	t.Setenv("MCP_API_KEY", testKey)
	addrFile := filepath.Join(t.TempDir(), "addr")
	ctx, cancel := context.WithCancel(t.Context())
	type outcome struct {
		r   *EchoReport
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := runEcho(ctx, &echoOptions{serverOptions: serverOptions{Addr: "127.0.0.1:0", AddrFile: addrFile, Max: time.Minute}, Size: 3000})
		done <- outcome{r, err}
	}()
	var addr string
	for range 200 { // bounded: 10 s
		if b, err := os.ReadFile(addrFile); err == nil && len(b) > 0 {
			addr = strings.TrimSpace(string(b))
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if addr == "" {
		cancel()
		t.Fatal("echo did not write its address")
	}
	url := "http://" + addr + "/mcp"
	for _, tc := range []struct {
		key    string
		ok     int
		errors map[string]int
	}{{testKey, 20, map[string]int{}}, {"wrong", 0, map[string]int{"http_401": 20}}} {
		o := &loadOptions{URL: url, Key: tc.key, Tool: "read_email", Args: json.RawMessage(`{}`), Timeout: 10 * time.Second,
			Plan: plan{Concurrency: 2, Count: 20, Warmup: 2}}
		s, err := runMCP(ctx, o)
		if err != nil || s.OK != tc.ok || !sameCounts(s.Errors, tc.errors) {
			t.Errorf("load against echo with key %q = ok %d errors %v, %v; want %d, %v", tc.key, s.OK, s.Errors, err, tc.ok, tc.errors)
		}
	}
	c := newMCPClient(url, testKey, 1, 10*time.Second)
	defer c.close()
	r, err := c.call(ctx, "anything", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]string
	if err := r.structured(&doc); err != nil || len(doc["filler"]) < 2900 {
		t.Errorf("echo structuredContent = %d bytes of filler, %v; want about 3000", len(doc["filler"]), err)
	}
	cancel()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop after cancel")
	}
	if o.err != nil || o.r.Requests != 23 {
		t.Errorf("runEcho() = %+v, %v; want 23 requests answered (20 + 2 warm-up + 1)", o.r, o.err)
	}
}
