package tools_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/email-mcp/email-mcp/internal/faultproxy"
	"github.com/email-mcp/email-mcp/mcpkit"
	"github.com/email-mcp/email-mcp/tools"
)

// No mail lost: 1,000 move_email calls between two folders under random
// connection cuts, then both folders together hold exactly the messages
// they started with, each once. Once with the server's MOVE, once with
// MOVE hidden (the proxy removes it from the capabilities), so that
// move_email takes the UID COPY + UID STORE + UID EXPUNGE path.

const (
	moveMessages = 200
	moveCalls    = 1000
	moveWorkers  = 8 // each owns moveMessages/moveWorkers messages: no two move the same one
	moveCutProb  = 0.02
	moveDeadline = 5 * time.Second
	// locateAttempts bounds the searches that find a message again after
	// a failed move (under the same faults).
	locateAttempts = 50
)

// place is where a worker believes a message is; uid 0: not known.
type place struct {
	folder string
	uid    uint32
}

// moveRun counts what a run did.
type moveRun struct {
	history               [moveMessages][]string // per message, by its worker only: for a failure report
	moves, searches, hung atomic.Int64
	outcomes              faultproxy.Tally // of the move calls
	movesOnWire           atomic.Int64     // UID MOVE commands the proxy saw
	copiesOnWire          atomic.Int64     // UID COPY commands the proxy saw
}

func TestFaultMoveNoLoss(t *testing.T) {
	tests := []struct {
		name     string
		rewrite  func([]byte) []byte
		wantMove bool // UID MOVE on the wire, else UID COPY
	}{
		{"MOVE", nil, true},
		{"COPY and EXPUNGE", faultproxy.HideMove, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faultproxy.CheckLeaks(t)
			e := newFaultEnv(t, faultproxy.Options{Seed: uint64(100 + i), ChunkSize: 512, RewriteDownstream: tt.rewrite})
			a, b := e.acct.Folder("fault-a"), e.acct.Folder("fault-b")
			e.acct.CreateFolder(t, a)
			e.acct.CreateFolder(t, b)
			places := make([]place, moveMessages)
			for m := range moveMessages {
				places[m] = place{a, e.acct.Append(t, a, moveMessage(m))}
			}
			run := &moveRun{}
			e.proxy.SetHook(func(dir faultproxy.Direction, chunk []byte) faultproxy.Verdict {
				if dir == faultproxy.Upstream {
					run.movesOnWire.Add(int64(bytes.Count(chunk, []byte(" UID MOVE "))))
					run.copiesOnWire.Add(int64(bytes.Count(chunk, []byte(" UID COPY "))))
				}
				return faultproxy.Forward
			})
			e.proxy.SetCutProbability(moveCutProb)

			var wg sync.WaitGroup
			for w := range moveWorkers {
				wg.Go(func() { e.moveWorker(t, run, w, places, a, b) })
			}
			wg.Wait()
			cuts := e.proxy.Stats().Cuts
			if err := e.proxy.Heal(); err != nil {
				t.Fatal(err)
			}

			lost, dups, extra, bad := e.checkFolders(t, a, b)
			for _, m := range bad {
				t.Logf("history of message %d: %s", m, strings.Join(run.history[m], "; "))
			}
			repaired := e.logs.count("imap: finished a move that a broken connection interrupted")
			for _, l := range e.logs.matching() {
				t.Logf("unrepaired: %s", l)
			}
			t.Logf("FAULTS: test=%s injected=%d calls=%d (move_email=%d search_emails=%d) hung=%d lost=%d duplicated=%d unknown=%d repaired=%d moves_on_wire=%d copies_on_wire=%d move outcomes: %s",
				t.Name(), cuts, run.moves.Load()+run.searches.Load(), run.moves.Load(), run.searches.Load(), run.hung.Load(),
				lost, dups, extra, repaired, run.movesOnWire.Load(), run.copiesOnWire.Load(), &run.outcomes)
			if run.moves.Load() != moveCalls || cuts == 0 || run.outcomes.Count("ok") == 0 {
				t.Errorf("%d move calls, %d cuts, outcomes %s: want %d calls, cuts, and moves that succeeded",
					run.moves.Load(), cuts, &run.outcomes, moveCalls)
			}
			if gotMove := run.movesOnWire.Load() > 0; gotMove != tt.wantMove || (run.copiesOnWire.Load() > 0) == tt.wantMove {
				t.Errorf("UID MOVE sent %d times, UID COPY %d times; want only %s", run.movesOnWire.Load(), run.copiesOnWire.Load(),
					map[bool]string{true: "MOVE", false: "COPY"}[tt.wantMove])
			}
		})
	}
}

// moveMessage is message m of the test: its Message-ID and subject carry m.
func moveMessage(m int) []byte {
	return fmt.Appendf(nil, "From: Mover <mover@example.test>\r\nTo: alice@example.test\r\nSubject: mv %03d\r\n"+
		"Message-ID: <move-%03d@example.test>\r\nDate: Tue, 19 Mar 2024 10:00:00 +0000\r\n\r\nMessage %d\r\n", m, m, m)
}

// moveWorker makes its share of the move calls on its own messages
// (m ≡ w mod moveWorkers), each to the other folder. After a failed move it
// finds the message again with search_emails before it moves it again.
func (e *faultEnv) moveWorker(t *testing.T, run *moveRun, w int, places []place, a, b string) {
	rng := rand.New(rand.NewPCG(uint64(w), 42))
	var mine []int
	for m := w; m < moveMessages; m += moveWorkers {
		mine = append(mine, m)
	}
	for range moveCalls / moveWorkers {
		m := mine[rng.IntN(len(mine))]
		if places[m].uid == 0 && !e.locate(t, run, m, places, a, b) {
			return
		}
		p := places[m]
		to := a
		if p.folder == a {
			to = b
		}
		var newUID *uint32
		outcome := faultproxy.Once(t, &run.outcomes, moveDeadline, func(ctx context.Context) string {
			outcome, res := e.tool(t, ctx, "move_email", map[string]any{"uid": p.uid, "from_folder": p.folder, "to_folder": to})
			if outcome == "ok" {
				var r tools.MoveResult
				decode(t, res, &r)
				newUID = r.NewUID
			}
			return expect(t, "move_email", outcome, string(mcpkit.CodeConnectionFailed), string(mcpkit.CodeConnectionTimeout),
				string(mcpkit.CodeMessageNotFound), "ok")
		})
		run.moves.Add(1)
		run.history[m] = append(run.history[m], fmt.Sprintf("move %s/%d → %s: %s %v", p.folder, p.uid, to, outcome, derefUID(newUID)))
		switch {
		case outcome == "hung":
			run.hung.Add(1)
			return
		case outcome == "ok" && newUID != nil:
			places[m] = place{to, *newUID}
		default: // failed, or no new UID: find it again
			places[m] = place{}
		}
		if outcome != "ok" {
			time.Sleep(10 * time.Millisecond) // as a client that retries
		}
	}
}

// locate finds message m in a or b with search_emails (under the faults).
func (e *faultEnv) locate(t *testing.T, run *moveRun, m int, places []place, a, b string) bool {
	subject := fmt.Sprintf("mv %03d", m)
	for range locateAttempts {
		found := []place{}
		ok := true
		for _, folder := range []string{a, b} {
			var r tools.SearchResult
			outcome := faultproxy.Once(t, nil, moveDeadline, func(ctx context.Context) string {
				outcome, res := e.tool(t, ctx, "search_emails", map[string]any{"folder": folder, "subject": subject})
				if outcome == "ok" {
					decode(t, res, &r)
				}
				return expect(t, "search_emails", outcome, faultCodes...)
			})
			run.searches.Add(1)
			if outcome == "hung" {
				run.hung.Add(1)
				return false
			}
			if outcome != "ok" {
				ok = false
				break
			}
			for _, s := range r.Messages {
				found = append(found, place{folder, s.UID})
			}
		}
		run.history[m] = append(run.history[m], fmt.Sprintf("located %v (ok %v)", found, ok))
		if ok && len(found) > 0 {
			// Several copies would be a duplicate: the final check counts it.
			places[m] = found[0]
			return true
		}
		if ok {
			t.Errorf("message %d is in neither folder", m)
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("message %d not found again after %d attempts", m, locateAttempts)
	return false
}

// checkFolders reads both folders directly (not through the proxy) and
// compares their Message-IDs with the seeded ones: it returns how many are
// missing, how many extra copies there are, and how many messages are not
// ours at all; each non-zero count fails t.
func (e *faultEnv) checkFolders(t *testing.T, folders ...string) (lost, dups, unknown int, bad []int) {
	t.Helper()
	c := e.acct.Client(t)
	count := map[string]int{}
	for _, folder := range folders {
		sel, err := c.Select(folder, &goimap.SelectOptions{ReadOnly: true}).Wait()
		if err != nil {
			t.Fatalf("Examine(%q) = %v", folder, err)
		}
		if sel.NumMessages == 0 {
			continue
		}
		msgs, err := c.Fetch(goimap.SeqSet{{Start: 1, Stop: 0}}, &goimap.FetchOptions{Envelope: true}).Collect()
		if err != nil {
			t.Fatalf("Fetch(%q) = %v", folder, err)
		}
		for _, msg := range msgs {
			count[msg.Envelope.MessageID]++
		}
	}
	var problems []string
	for m := range moveMessages {
		id := fmt.Sprintf("move-%03d@example.test", m)
		switch n := count[id]; {
		case n == 0:
			lost++
			bad = append(bad, m)
			problems = append(problems, id+" lost")
		case n > 1:
			dups += n - 1
			bad = append(bad, m)
			problems = append(problems, fmt.Sprintf("%s ×%d", id, n))
		}
		delete(count, id)
	}
	for id, n := range count {
		unknown += n
		problems = append(problems, fmt.Sprintf("unknown %q ×%d", id, n))
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		t.Errorf("after the moves: %d lost, %d duplicated, %d unknown: %s", lost, dups, unknown, strings.Join(problems, ", "))
	}
	return lost, dups, unknown, bad
}

// derefUID renders a new_uid for the history.
func derefUID(u *uint32) string {
	if u == nil {
		return "-"
	}
	return fmt.Sprint(*u)
}
