package imap_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/faultproxy"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// A server that answers a move OK without expunging the original (Dovecot
// 2.3 did, now and then, under load: TestFaultMoveNoLoss found the
// original of a successful move still in its folder). The proxy plays it:
// it turns the first UID EXPUNGE into a NOOP (the COPY path), or the first
// UID MOVE into a UID COPY, whose answers are OK too, without EXPUNGE. Move
// must notice and remove the original: the message ends up in the target
// only. In-process and, with EMAIL_MCP_TEST_DOVECOT=1, on Dovecot.
func TestMoveServerKeptOriginal(t *testing.T) {
	expunge := regexp.MustCompile(`^(\S+) UID EXPUNGE \S+\r\n$`)
	move := regexp.MustCompile(`^(\S+) UID MOVE `)
	tests := []struct {
		name    string
		hide    bool // hide MOVE: the COPY path
		rewrite func(line []byte) []byte
	}{
		{"UID EXPUNGE answered without expunging", true, func(line []byte) []byte {
			return expunge.ReplaceAll(line, []byte("$1 NOOP\r\n"))
		}},
		{"UID MOVE answered as a COPY", false, func(line []byte) []byte {
			return move.ReplaceAll(line, []byte("$1 UID COPY "))
		}},
	}
	faultproxy.CheckLeaks(t)
	acct := mailtest.NewAccount(t)
	check := acct.Client(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to := acct.Folder(fmt.Sprintf("kept-from-%d", i)), acct.Folder(fmt.Sprintf("kept-to-%d", i))
			acct.CreateFolder(t, from)
			acct.CreateFolder(t, to)
			var rewrote atomic.Int32
			opts := faultproxy.Options{Target: acct.Addr(), RewriteUpstream: func(line []byte) []byte {
				if out := tt.rewrite(line); !bytes.Equal(out, line) && rewrote.Add(1) == 1 {
					return out
				}
				return line
			}}
			if tt.hide {
				opts.RewriteDownstream = faultproxy.HideMove
			}
			p := faultproxy.Start(t, opts)
			c := imap.New(imap.Options{Host: p.Host(), Port: p.Port(), Username: acct.Username, Password: acct.Password,
				Security: imap.SecurityPlain, PoolSize: 2, DialTimeout: 2 * time.Second, CommandTimeout: 2 * time.Second})
			t.Cleanup(func() { _ = c.Close() })
			id := fmt.Sprintf("kept-%d@example.test", i)
			uid := acct.Append(t, from, fmt.Appendf(nil, "From: a@example.test\r\nSubject: kept %d\r\nMessage-ID: <%s>\r\n\r\nBody\r\n", i, id))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			newUID, err := c.Move(ctx, from, uid, to)
			if rewrote.Load() == 0 {
				t.Fatal("the proxy rewrote no command: the test played nothing")
			}
			inFrom, inTo := countByID(t, check, from, id), countByID(t, check, to, id)
			if err != nil || newUID == 0 || inFrom != 0 || inTo != 1 {
				t.Errorf("Move() = %d, %v; copies in the source %d, in the target %d; want a new UID, nil, 0, 1", newUID, err, inFrom, inTo)
			}
		})
	}
}
