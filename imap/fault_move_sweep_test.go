package imap_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/faultproxy"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// TestFaultMoveCutSweep cuts the connection of one Move at every third byte
// offset of its exchange in turn (the end of the login, SELECT, the UID
// check, the MOVE or COPY + STORE + EXPUNGE and their answers), each time
// on a fresh message, and lets the repair run undisturbed on a new
// connection. After
// each, the message must be in exactly one of the two folders, and Move
// must say which: success means it is in the target, an error that it
// stayed in the source.
func TestFaultMoveCutSweep(t *testing.T) {
	for _, mode := range []struct {
		name string
		hide bool
	}{{"MOVE", false}, {"COPY and EXPUNGE", true}} {
		t.Run(mode.name, func(t *testing.T) {
			faultproxy.CheckLeaks(t)
			acct := mailtest.NewAccount(t)
			from, to := acct.Folder("sweep-from"), acct.Folder("sweep-to")
			acct.CreateFolder(t, from)
			acct.CreateFolder(t, to)
			opts := faultproxy.Options{Target: acct.Addr(), ChunkSize: 512}
			if mode.hide {
				opts.RewriteDownstream = faultproxy.HideMove
			}
			p := faultproxy.Start(t, opts)
			check := acct.Client(t)
			n := 0
			move := func(t *testing.T, cutAt int64) (moved bool, err error) {
				t.Helper()
				n++
				id := fmt.Sprintf("sweep-%d@example.test", n)
				uid := acct.Append(t, from, fmt.Appendf(nil, "From: a@example.test\r\nSubject: sweep %d\r\nMessage-ID: <%s>\r\n\r\nBody\r\n", n, id))
				c := imap.New(imap.Options{Host: p.Host(), Port: p.Port(), Username: acct.Username, Password: acct.Password,
					Security: imap.SecurityPlain, PoolSize: 2, DialTimeout: 2 * time.Second, CommandTimeout: 2 * time.Second})
				defer c.Close()
				p.CutNextAfter(cutAt)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				newUID, err := c.Move(ctx, from, uid, to)
				p.CutNextAfter(0)
				inFrom, inTo := countByID(t, check, from, id), countByID(t, check, to, id)
				switch {
				case inFrom+inTo != 1:
					t.Errorf("cut after %d bytes: Move() = %d, %v; %d copies in the source, %d in the target; want 1 in all", cutAt, newUID, err, inFrom, inTo)
				case err == nil && inTo != 1:
					t.Errorf("cut after %d bytes: Move() = %d, nil, but the message stayed in the source", cutAt, newUID)
				case err != nil && inFrom != 1:
					t.Errorf("cut after %d bytes: Move() = %v, but the message is in the target", cutAt, err)
				}
				return err == nil, err
			}
			before := p.Stats()
			if _, err := move(t, 0); err != nil {
				t.Fatalf("Move() without a cut = %v", err)
			}
			after := p.Stats()
			total := int64(after.BytesUp + after.BytesDown - before.BytesUp - before.BytesDown)
			// Cuts before the login ends fail the dial, which other tests
			// cover: the sweep starts after it.
			login := loginBytes(t, p, acct)
			errs := 0
			for cut := login; cut < total; cut += sweepStride {
				if _, err := move(t, cut); err != nil {
					errs++
				}
			}
			t.Logf("FAULTS: test=%s injected=%d calls=%d (bytes %d to %d swept) failed=%d", t.Name(), p.Stats().Cuts, n, login, total, errs)
		})
	}
}

// sweepStride is the step between two cuts of the sweep: every offset
// takes about a minute under -race, mostly repairs that wait for a COPY
// that never came (copySettle).
const sweepStride = 3

// countByID counts the messages of folder whose Message-ID is id, on a
// connection of its own (not through the proxy), selected afresh.
func countByID(t *testing.T, c *imapclient.Client, folder, id string) int {
	t.Helper()
	return len(uidsByID(t, c, folder, id))
}

// uidsByID returns the UIDs of the messages of folder whose Message-ID is
// id, selecting folder afresh on c.
func uidsByID(t *testing.T, c *imapclient.Client, folder, id string) []goimap.UID {
	t.Helper()
	if _, err := c.Select(folder, &goimap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		t.Fatalf("Examine(%q) = %v", folder, err)
	}
	d, err := c.UIDSearch(&goimap.SearchCriteria{Header: []goimap.SearchCriteriaHeaderField{{Key: "Message-ID", Value: id}}}, nil).Wait()
	if err != nil {
		t.Fatalf("UID SEARCH in %q = %v", folder, err)
	}
	return d.AllUIDs()
}

// loginBytes is what a connection through p exchanges until it is logged
// in: the bytes of a Client's first connection, which sends nothing more
// (PoolStats is read without I/O).
func loginBytes(t *testing.T, p *faultproxy.Proxy, acct *mailtest.Account) int64 {
	t.Helper()
	c := imap.New(imap.Options{Host: p.Host(), Port: p.Port(), Username: acct.Username, Password: acct.Password,
		Security: imap.SecurityPlain, PoolSize: 1, DialTimeout: 2 * time.Second, CommandTimeout: 2 * time.Second})
	defer c.Close()
	before := p.Stats()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.UIDValidity(ctx, "INBOX"); err != nil {
		t.Fatalf("UIDValidity() = %v", err)
	}
	after := p.Stats()
	return int64(after.BytesUp+after.BytesDown-before.BytesUp-before.BytesDown) - statusBytes
}

// statusBytes is about what UIDValidity's STATUS exchange takes, less a
// margin, so that the sweep starts a little before the login's end.
const statusBytes = 120
