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
	Addr     string
	AddrFile string
	Size     int
	Max      time.Duration
}

// EchoReport is what `echo` prints when it stops.
type EchoReport struct {
	Requests int64 `json:"requests"`
}

func parseEcho(args []string, stderr io.Writer) (*echoOptions, error) {
	o := &echoOptions{}
	fs := newFlagSet("echo", stderr)
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:0", "listen address (loopback)")
	fs.StringVar(&o.AddrFile, "addr-file", "", "write the address listened on to this file")
	fs.IntVar(&o.Size, "size", 2000, "bytes of JSON in each result (sent twice, as text and structuredContent)")
	fs.DurationVar(&o.Max, "d", 30*time.Minute, "stop after this long at most")
	if err := parseAll(fs, args); err != nil {
		return nil, err
	}
	if o.Size < 0 || o.Size > 16<<20 {
		return nil, fmt.Errorf("-size %d: want 0..16 MiB", o.Size)
	}
	if o.Max <= 0 || o.Max > 24*time.Hour {
		return nil, fmt.Errorf("-d %v: want up to 24h", o.Max)
	}
	return o, checkAddr("addr", o.Addr, false)
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
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, err
	}
	if o.AddrFile != "" {
		if err := os.WriteFile(o.AddrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			_ = ln.Close()
			return nil, err
		}
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
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	ctx, cancel := context.WithTimeout(ctx, o.Max)
	defer cancel()
	select {
	case err = <-errc:
	case <-ctx.Done():
		_ = srv.Close()
		err = <-errc
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return &EchoReport{Requests: n.Load()}, err
}
