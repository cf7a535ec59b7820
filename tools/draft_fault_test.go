package tools_test

import (
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/faultproxy"
	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/tools"
)

// TestDraftRemovalCut cuts the IMAP connection while update_draft and
// send_draft remove the old draft (at its UID STORE \Deleted, and at the
// UID EXPUNGE on its way, or its answer on the way back): the removal is
// finished on a fresh connection, so no old copy lingers and the call
// succeeds. In-process and, on the tier, on Dovecot.
func TestDraftRemovalCut(t *testing.T) {
	cases := []struct {
		name, marker string
		dir          faultproxy.Direction
	}{
		{"STORE sent", `+FLAGS.SILENT (\Deleted)`, faultproxy.Upstream},
		{"EXPUNGE sent", "UID EXPUNGE", faultproxy.Upstream},
	}
	for _, tool := range []string{"update_draft", "send_draft"} {
		for _, c := range cases {
			t.Run(tool+" "+c.name, func(t *testing.T) {
				acct := mailtest.NewAccount(t)
				p := faultproxy.Start(t, faultproxy.Options{Target: acct.Addr()})
				mail := imap.New(imap.Options{Host: p.Host(), Port: p.Port(), Username: acct.Username, Password: acct.Password,
					Security: imap.SecurityPlain, PoolSize: 2, DialTimeout: 2 * time.Second, CommandTimeout: 2 * time.Second})
				t.Cleanup(func() { _ = mail.Close() })
				rl := &relay{t: t, acct: acct}
				_, sender := relayClients(t, acct, rl)
				ts, err := tools.New(tools.Deps{Mail: mail, Sent: mail, Sender: sender, Send: tools.SendOptions{From: acct.Username, SaveSent: "false"}},
					tools.Options{Logger: slog.New(slog.DiscardHandler)})
				if err != nil {
					t.Fatal(err)
				}
				e := &draftEnv{mailEnv: &mailEnv{acct: acct, client: inProcessClient(t, ts)}, relay: rl, mail: mail}
				subject := unique("Cut draft")
				var d tools.DraftResult
				e.call(t, "save_draft", map[string]any{"to": "bob@example.test", "subject": subject, "body": "v1"}, &d)
				var fired atomic.Bool
				p.SetHook(faultproxy.CutOnce(c.dir, c.marker, &fired))
				if tool == "update_draft" {
					var u tools.DraftResult
					e.call(t, tool, map[string]any{"draft_id": d.DraftID, "to": "bob@example.test", "subject": subject, "body": "v2"}, &u)
				} else {
					var s tools.SendDraftResult
					e.call(t, tool, map[string]any{"draft_id": d.DraftID}, &s)
					if !s.DraftRemoved {
						t.Errorf("send_draft = %+v, want draft_removed", s)
					}
				}
				p.SetHook(nil)
				if !fired.Load() {
					t.Fatalf("the hook never saw %q: nothing was cut", c.marker)
				}
				want := map[string]int{"update_draft": 1, "send_draft": 0}[tool]
				if got := e.drafts(t, d.Folder, subject); len(got) != want {
					t.Errorf("after %s cut at %s, Drafts holds %d drafts (%+v), want %d", tool, c.name, len(got), got, want)
				}
			})
		}
	}
}
