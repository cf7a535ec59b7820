package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// echoOptions run an HTTP server that answers every JSON-RPC request at
// once with a canned tool result of -size bytes: the floor under any MCP
// server over HTTP on this machine, measured with the same client (`load`)
// as email-mcp. Its key check is a plain comparison, like email-mcp's.
type echoOptions struct {
	serverOptions
	Size int
}

// EchoReport is what `echo` prints when it stops.
type EchoReport struct {
	Requests int64 `json:"requests"`
}

func parseEcho(args []string, stderr io.Writer) (*echoOptions, error) {
	o := &echoOptions{}
	fs := newFlagSet("echo", stderr)
	o.flags(fs)
	fs.IntVar(&o.Size, "size", 2000, "bytes of JSON in each result (sent twice, as text and structuredContent)")
	if err := parseAll(fs, args); err != nil {
		return nil, err
	}
	if o.Size < 0 || o.Size > 16<<20 {
		return nil, fmt.Errorf("-size %d: want 0..16 MiB", o.Size)
	}
	return o, o.check()
}

// echoResult is a result whose structuredContent is about size bytes of
// JSON, and its text the same JSON, as a tool result of email-mcp.
func echoResult(size int) []byte {
	doc, _ := json.Marshal(map[string]string{"filler": strings.Repeat("x", max(0, size-14))})
	text, _ := json.Marshal(string(doc))
	return []byte(`{"content":[{"type":"text","text":` + string(text) + `}],"structuredContent":` + string(doc) + `}`)
}

// runEcho serves until ctx ends or o.Max passes.
func runEcho(ctx context.Context, o *echoOptions) (*EchoReport, error) {
	ln, err := o.listen()
	if err != nil {
		return nil, err
	}
	key := os.Getenv("MCP_API_KEY")
	result := echoResult(o.Size)
	var n atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if key != "" && r.Header.Get("X-API-Key") != key {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if err != nil || json.Unmarshal(body, &msg) != nil || len(msg.ID) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		n.Add(1)
		var b bytes.Buffer
		b.Grow(len(result) + 64)
		b.WriteString(`{"jsonrpc":"2.0","id":`)
		b.Write(msg.ID)
		b.WriteString(`,"result":`)
		b.Write(result)
		b.WriteString("}\n")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b.Bytes())
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	err = o.serveFor(ctx, func() error { return srv.Serve(ln) }, srv.Close, http.ErrServerClosed)
	return &EchoReport{Requests: n.Load()}, err
}
