package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shortLimits shortens the body deadline and turns off the eviction grace
// (so that which connection goes is decided by state alone, not by the
// machine's speed), for one test.
func shortLimits(t *testing.T, body time.Duration) {
	t.Helper()
	oldBody, oldGrace := bodyTimeout, evictGrace
	bodyTimeout, evictGrace = body, 0
	t.Cleanup(func() { bodyTimeout, evictGrace = oldBody, oldGrace })
}

// freshClient makes one request per connection, as a new client would.
func freshClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 20 * time.Second}
}

// rawSocket opens a connection and writes head to it.
func rawSocket(t *testing.T, s *serving, head string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	return c
}

// untilClosed reads c until the server closes it and returns the status
// line it got ("" when none); a hang detector far above every deadline
// fails the test.
func untilClosed(t *testing.T, c net.Conn) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server did not close a stalled connection (read %q)", b)
	}
	line, _, _ := strings.Cut(string(b), "\r\n")
	return line
}

// TestNoBodySocketsDoNotHoldTheServer: sockets that send full headers with
// a Content-Length and then nothing, as many as MCP_MAX_CONNECTIONS, lock
// out neither /health nor a client with the key: without a key they get
// their 401 and are closed at once; with the key they are closed after the
// body deadline with 408 (or make room for a newer client before that).
// Before, each held its slot for ever and every endpoint answered 503.
func TestNoBodySocketsDoNotHoldTheServer(t *testing.T) {
	for _, tt := range []struct {
		max, size int
		key       bool
	}{
		{4, 100, false},
		{8, 1 << 20, false},
		{16, 100, false},
		{4, 100, true},
		{8, 3 << 20, true},
		{16, 1000, true},
	} {
		t.Run(fmt.Sprintf("max=%d,size=%d,key=%v", tt.max, tt.size, tt.key), func(t *testing.T) {
			shortLimits(t, 2*time.Second)
			t.Setenv("MCP_MAX_CONNECTIONS", strconv.Itoa(tt.max))
			s := startServe(t)
			hdr := ""
			if tt.key {
				hdr = "X-API-Key: " + serveKey + "\r\n"
			}
			socks := make([]net.Conn, tt.max)
			start := time.Now()
			for i := range socks {
				socks[i] = rawSocket(t, s, "POST /mcp/call HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"+
					hdr+"Content-Length: "+strconv.Itoa(tt.size)+"\r\n\r\n")
			}
			if resp, err := freshClient().Get(s.base + "/health"); err != nil || resp.StatusCode != 200 {
				t.Fatalf("/health with %d no-body sockets open = %v %v, want 200", tt.max, resp, err)
			}
			out, err := s.toolCall(freshClient(), "/mcp/call", 1)
			if err != nil || out.status != 200 || out.code != "" {
				t.Fatalf("keyed call with %d no-body sockets open = %+v %v, want a result", tt.max, out, err)
			}
			want := "HTTP/1.1 401 Unauthorized"
			if tt.key {
				want = "HTTP/1.1 408 Request Timeout"
			}
			answered := 0
			for i, c := range socks {
				switch line := untilClosed(t, c); line {
				case want:
					answered++
				case "": // evicted to make room for /health or the call
				default:
					t.Errorf("socket %d got %q, want %q or a close", i, line, want)
				}
			}
			t.Logf("%d no-body sockets (key %v) all closed after %v (body deadline 2s); %d answered %q", tt.max, tt.key,
				time.Since(start).Round(100*time.Millisecond), answered, want)
			if answered < tt.max-2 {
				t.Errorf("%d of %d sockets answered %q, want all but the (at most 2) evicted", answered, tt.max, want)
			}
			s.stop(t)
		})
	}
}

// TestSlowHeaderSocketsEvicted: sockets that dribble their headers fill
// MCP_MAX_CONNECTIONS; a new client is still served, because connections
// that have not authenticated go first. Before, it got 503 until the
// header timeout.
func TestSlowHeaderSocketsEvicted(t *testing.T) {
	for _, max := range []int{2, 8, 32} {
		t.Run(strconv.Itoa(max), func(t *testing.T) {
			shortLimits(t, 2*time.Second)
			t.Setenv("MCP_MAX_CONNECTIONS", strconv.Itoa(max))
			s := startServe(t)
			var slow []net.Conn
			for range max * 3 {
				slow = append(slow, rawSocket(t, s, "POST /mcp/call HTTP/1.1\r\nHost: localhost\r\nX-Slow: "))
			}
			for i := range 3 {
				if resp, err := freshClient().Get(s.base + "/health"); err != nil || resp.StatusCode != 200 {
					t.Fatalf("/health %d with %d slow sockets = %v %v, want 200", i, 3*max, resp, err)
				}
				out, err := s.toolCall(freshClient(), "/mcp", i)
				if err != nil || out.status != 200 || out.code != "" {
					t.Fatalf("keyed call %d with %d slow sockets = %+v %v, want a result", i, 3*max, out, err)
				}
			}
			for _, c := range slow {
				c.Close() // or Shutdown waits for their header timeout
			}
			s.stop(t)
		})
	}
}

// sseStream is an open GET /sse with its session's message URL.
type sseStream struct {
	conn    net.Conn
	r       *bufio.Reader
	message string
}

// openSSE opens GET /sse with the key on a raw connection and reads the
// endpoint event. A 503 is retried (bounded): a connection the test closed
// just before may still hold its slot for a moment.
func openSSE(t *testing.T, s *serving) *sseStream {
	t.Helper()
	for range 100 {
		c := rawSocket(t, s, "GET /sse HTTP/1.1\r\nHost: localhost\r\nX-API-Key: "+serveKey+"\r\nAccept: text/event-stream\r\n\r\n")
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		st := &sseStream{conn: c, r: bufio.NewReader(c)}
		status, err := st.r.ReadString('\n')
		if err != nil {
			t.Fatalf("GET /sse: %v", err)
		}
		if strings.HasPrefix(status, "HTTP/1.1 503") {
			c.Close()
			time.Sleep(50 * time.Millisecond)
			continue
		}
		for {
			line, err := st.r.ReadString('\n')
			if err != nil {
				t.Fatalf("GET /sse: %v (status %q)", err, status)
			}
			if rest, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(rest, "sessionId=") {
				st.message = strings.TrimSpace(rest)
				return st
			}
		}
	}
	t.Fatal("GET /sse: 503 a hundred times")
	return nil
}

// ping posts a ping to the session and reads its answer from the stream.
func (st *sseStream) ping(t *testing.T, s *serving, id int) {
	t.Helper()
	status, _, body := s.do(t, "POST", st.message, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id), keyed)
	if status != http.StatusAccepted {
		t.Fatalf("POST %s = %d %s, want 202", st.message, status, body)
	}
	_ = st.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		line, err := st.r.ReadString('\n')
		if err != nil {
			t.Fatalf("SSE stream ended before the ping's answer: %v", err)
		}
		if strings.Contains(line, fmt.Sprintf(`"id":%d`, id)) && strings.Contains(line, `"result"`) {
			return
		}
	}
}

// TestAuthenticatedStreamsKept: SSE streams hold their slots through a
// flood of stalled unauthenticated sockets (those go instead), and only
// when every slot is an authenticated stream does a new connection get 503.
func TestAuthenticatedStreamsKept(t *testing.T) {
	shortLimits(t, 2*time.Second)
	const max = 4
	t.Setenv("MCP_MAX_CONNECTIONS", strconv.Itoa(max))
	s := startServe(t)
	var streams []*sseStream
	for range max - 2 {
		streams = append(streams, openSSE(t, s))
	}
	for range 20 {
		rawSocket(t, s, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
		rawSocket(t, s, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 50\r\nX-API-Key: "+serveKey+"\r\n\r\n")
	}
	if resp, err := freshClient().Get(s.base + "/health"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/health with streams and stalled sockets = %v %v, want 200", resp, err)
	}
	for i, st := range streams {
		st.ping(t, s, 100+i) // the stream was kept; the ping's POST got a slot
	}
	for len(streams) < max {
		streams = append(streams, openSSE(t, s))
	}
	// Read before writing: the refusal is written at accept, and a request
	// sent into a socket the server closes could turn it into a reset.
	if line := untilClosed(t, rawSocket(t, s, "")); !strings.HasPrefix(line, "HTTP/1.1 503") {
		t.Fatalf("a new connection with %d streams in %d slots got %q, want 503", max, max, line)
	}
	streams[0].conn.Close()
	ok := false
	for range 100 { // bounded: the slot frees when the server sees the close
		if resp, err := freshClient().Get(s.base + "/health"); err == nil && resp.StatusCode == 200 {
			ok = true
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !ok {
		t.Fatal("/health not served after a stream closed")
	}
	streams[1].ping(t, s, 200)
}

// TestLongCallOutlivesBodyDeadline: the body deadline bounds reading the
// request, not the answer: a wait on /mcp that streams progress for longer
// than the deadline gets its result (a ReadTimeout on the server would
// cancel it when the deadline passes).
func TestLongCallOutlivesBodyDeadline(t *testing.T) {
	shortLimits(t, time.Second)
	t.Setenv("WAIT_PROGRESS_SECONDS", "1")
	s := startServe(t)
	status, _, body := s.do(t, "POST", "/mcp/call", `{"method":"tools/call","params":{"name":"create_inbox","arguments":{}}}`, keyed)
	id, _, _ := strings.Cut(body[strings.Index(body, `"inbox_id":"`)+len(`"inbox_id":"`):], `"`)
	if status != 200 || id == "" {
		t.Fatalf("create_inbox = %d %s", status, body)
	}
	start := time.Now()
	status, _, body = s.do(t, "POST", "/mcp", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait_for_email",`+
		`"arguments":{"inbox_id":"`+id+`","timeout":3},"_meta":{"progressToken":"p"}}}`, keyed)
	if status != 200 || !strings.Contains(body, "notifications/progress") || !strings.Contains(body, "WAIT_TIMEOUT") {
		t.Fatalf("wait_for_email over a 1s body deadline = %d %.500s, want progress then WAIT_TIMEOUT", status, body)
	}
	t.Logf("wait answered after %v with a body deadline of 1s", time.Since(start).Round(100*time.Millisecond))
	s.stop(t)
}

// TestBodyMinimumRate: past the body deadline a body must keep arriving at
// the minimum rate. One that trickles (a byte every 50 ms) is answered 408
// and closed long before it would end; a 3 MiB body sent in pieces over
// more than the deadline, but fast, is served.
func TestBodyMinimumRate(t *testing.T) {
	shortLimits(t, time.Second)
	s := startServe(t)
	call := `{"method":"tools/call","params":{"name":"list_inboxes","arguments":{}}}`
	head := func(n int) string {
		return "POST /mcp/call HTTP/1.1\r\nHost: localhost\r\nX-API-Key: " + serveKey +
			"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(n) + "\r\n\r\n"
	}

	slow := rawSocket(t, s, head(2000))
	got := make(chan string, 1)
	go func() {
		_ = slow.SetReadDeadline(time.Now().Add(30 * time.Second))
		line, _ := bufio.NewReader(slow).ReadString('\n')
		got <- line
	}()
	sent := 0
	var line string
trickle:
	for sent < 2000 { // 2000 bytes at 20 a second would take 100 s
		select {
		case line = <-got:
			break trickle
		case <-time.After(50 * time.Millisecond):
		}
		if _, err := io.WriteString(slow, " "); err != nil {
			line = <-got
			break
		}
		sent++
	}
	if !strings.HasPrefix(line, "HTTP/1.1 408") || sent >= 2000 {
		t.Fatalf("trickled body: %q after %d of 2000 bytes, want 408 before the end", line, sent)
	}
	t.Logf("trickled body: %q after %d of 2000 bytes (deadline 1s, then 32 KiB/s)", strings.TrimSpace(line), sent)

	body := call + strings.Repeat(" ", 3<<20-len(call))
	fast := rawSocket(t, s, head(len(body)))
	start := time.Now()
	for off := 0; off < len(body); off += 64 << 10 {
		if _, err := io.WriteString(fast, body[off:min(off+64<<10, len(body))]); err != nil {
			t.Fatalf("fast body: write at %d: %v", off, err)
		}
		time.Sleep(25 * time.Millisecond) // 48 pieces: longer than the 1 s deadline
	}
	_ = fast.SetReadDeadline(time.Now().Add(30 * time.Second))
	status, _ := bufio.NewReader(fast).ReadString('\n')
	if !strings.HasPrefix(status, "HTTP/1.1 200") {
		t.Fatalf("3 MiB body sent over %v = %q, want 200", time.Since(start).Round(100*time.Millisecond), status)
	}
	s.stop(t)
}
