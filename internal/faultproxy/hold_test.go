package faultproxy_test

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/internal/faultproxy"
)

// CutNextAfter cuts the next connection after n bytes, and no other.
func TestCutNextAfter(t *testing.T) {
	const total, n = 20000, 1234
	p := faultproxy.Start(t, faultproxy.Options{Target: server(t, source(total))})
	p.CutNextAfter(n)
	if got := drain(t, p); len(got) > n || !bytes.Equal(got, pattern(len(got))) {
		t.Errorf("CutNextAfter(%d), first connection: read %d bytes, want at most the first %d", n, len(got), n)
	}
	if got := drain(t, p); len(got) != total {
		t.Errorf("CutNextAfter(%d), second connection: read %d bytes, want all %d", n, len(got), total)
	}
	if st := p.Stats(); st.Cuts != 1 {
		t.Errorf("Stats() = %+v, want 1 cut", st)
	}
}

// Hold cuts the client at once and hands the held chunk to the server only
// at Release: the server reads nothing before, then the chunk.
func TestHoldRelease(t *testing.T) {
	got := make(chan string, 1)
	p := faultproxy.Start(t, faultproxy.Options{Target: server(t, func(c net.Conn) {
		b := make([]byte, 100)
		n, _ := c.Read(b)
		got <- string(b[:n])
	})})
	p.SetHook(func(d faultproxy.Direction, chunk []byte) faultproxy.Verdict {
		if d == faultproxy.Upstream && bytes.Contains(chunk, []byte("COPY")) {
			return faultproxy.Hold
		}
		return faultproxy.Forward
	})
	c := dial(t, p)
	if _, err := io.WriteString(c, "A1 UID COPY 7 Trash\r\n"); err != nil {
		t.Fatal(err)
	}
	if b := wantBroken(t, c); len(b) != 0 {
		t.Errorf("the client read %q, want a cut", b)
	}
	select {
	case s := <-got:
		t.Fatalf("the server read %q before Release", s)
	default:
	}
	if n := p.Release(); n != 1 {
		t.Fatalf("Release() = %d, want 1", n)
	}
	if s := <-got; !strings.HasPrefix(s, "A1 UID COPY 7") {
		t.Errorf("the server read %q after Release, want the held command", s)
	}
	if n := p.Release(); n != 0 {
		t.Errorf("Release() again = %d, want 0", n)
	}
}
