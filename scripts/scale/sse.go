package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// sseSession opens one legacy HTTP+SSE session through base from the source
// address local, and reports whether it started: the endpoint event came,
// initialize and a tools/call were answered on the stream. upstream is the
// replica nginx chose for the GET (its X-Upstream header, when present).
func sseSession(ctx context.Context, base, host, key string, local net.IP) (started bool, upstream string, why string) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c := newClient(base, host, key, local).http
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/sse", nil)
	req.Host = host
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		return false, "", "GET /sse: " + err.Error()
	}
	defer resp.Body.Close()
	upstream = resp.Header.Get("X-Upstream")
	if resp.StatusCode != http.StatusOK {
		return false, upstream, fmt.Sprintf("GET /sse: HTTP %d", resp.StatusCode)
	}
	events := make(chan [2]string, 16)
	go readEvents(bufio.NewReader(resp.Body), events)
	ev, ok := nextEvent(ctx, events, "endpoint")
	if !ok {
		return false, upstream, "no endpoint event"
	}
	post := func(msg string) (int, error) {
		r, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+ev, strings.NewReader(msg))
		r.Host = host
		r.Header.Set("X-API-Key", key)
		r.Header.Set("Content-Type", "application/json")
		pr, err := c.Do(r)
		if err != nil {
			return 0, err
		}
		pr.Body.Close()
		return pr.StatusCode, nil
	}
	steps := []struct{ msg, id string }{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"scale","version":"1"}}}`, "1"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_folders","arguments":{}}}`, "2"},
	}
	for _, s := range steps {
		code, err := post(s.msg)
		if err != nil || code/100 != 2 {
			return false, upstream, fmt.Sprintf("POST /message: HTTP %d (err %v)", code, err != nil)
		}
		if s.id == "" {
			continue
		}
		if !answered(ctx, events, s.id) {
			return false, upstream, "no answer on the stream to request " + s.id
		}
	}
	return true, upstream, ""
}

// readEvents parses an event stream into (event, data) pairs.
func readEvents(r *bufio.Reader, out chan<- [2]string) {
	defer close(out)
	var name, data string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if name != "" || data != "" {
				out <- [2]string{name, data}
			}
			name, data = "", ""
		case strings.HasPrefix(line, "event:"):
			name = strings.TrimSpace(line[6:])
		case strings.HasPrefix(line, "data:"):
			data += strings.TrimSpace(line[5:])
		}
	}
}

func nextEvent(ctx context.Context, events <-chan [2]string, name string) (string, bool) {
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return "", false
			}
			if ev[0] == name {
				return ev[1], true
			}
		case <-ctx.Done():
			return "", false
		}
	}
}

// answered waits for a JSON-RPC result with the given id on the stream.
func answered(ctx context.Context, events <-chan [2]string, id string) bool {
	for {
		data, ok := nextEvent(ctx, events, "message")
		if !ok {
			return false
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(data), &m) == nil && bytes.Equal(m.ID, []byte(id)) {
			return len(m.Result) > 0
		}
	}
}

// sseReport is the result of n sessions through one configuration.
type sseReport struct {
	Sessions  int            `json:"sessions"`
	Started   int            `json:"started"`
	Upstreams map[string]int `json:"upstreams"`
	Failures  map[string]int `json:"failures,omitempty"`
}

// sseRun opens n sessions at once, each from its own loopback source
// address (127.0.0.11, .12, ...), as n clients on n hosts would.
func sseRun(ctx context.Context, base, host, key string, n int) sseReport {
	rep := sseReport{Sessions: n, Upstreams: map[string]int{}, Failures: map[string]int{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, up, why := sseSession(ctx, base, host, key, net.IPv4(127, 0, 0, byte(11+i)))
			mu.Lock()
			defer mu.Unlock()
			rep.Upstreams[up]++
			if ok {
				rep.Started++
			} else {
				rep.Failures[why]++
			}
		}()
	}
	wg.Wait()
	return rep
}
