package gosdk

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// eventually calls f until it reports true, for at most 10 s.
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if f() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not seen within 10 s", what)
}

// TestGoSDKEverydayVerbs drives the tools of issue 16 through the Go SDK on
// revision 2026-07-28: a reply exchange seen whole by get_thread, a
// forward, a draft saved, replaced and sent, delete_email (dry run, then
// to Trash) and the folder tools with a non-ASCII name.
func TestGoSDKEverydayVerbs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	s := start(t)
	cs := connect(t, ctx, s, "2026-07-28")
	me := s.me
	subject := fmt.Sprintf("gosdk verbs %d", time.Now().UnixNano())

	find := func(folder, subj string) []any {
		r := mustCall(t, ctx, cs, "search_emails", map[string]any{"folder": folder, "subject": subj, "limit": 10})
		m, _ := r["messages"].([]any)
		return m
	}
	sendMail(t, s, me, subject, "the first message of a thread")
	var first map[string]any
	eventually(t, "the first message", func() bool {
		m := find("INBOX", subject)
		if len(m) == 1 {
			first = m[0].(map[string]any)
		}
		return first != nil
	})

	// reply_email, then get_thread sees the original and the reply.
	mustCall(t, ctx, cs, "reply_email", map[string]any{"uid": first["id"], "body": "a reply"})
	eventually(t, "the reply in the thread", func() bool {
		th := mustCall(t, ctx, cs, "get_thread", map[string]any{"uid": first["id"]})
		n, _ := th["total"].(float64)
		return n >= 2
	})

	// forward_email as an attachment.
	fwd := mustCall(t, ctx, cs, "forward_email", map[string]any{"uid": first["id"], "to": []string{me}, "body": "fyi", "mode": "attachment"})
	if fwd["success"] != true || fwd["subject"] != "Fwd: "+subject {
		t.Fatalf("forward_email = %v", fwd)
	}

	// A draft: saved, replaced, sent; none left in Drafts.
	dsub := subject + " draft"
	saved := mustCall(t, ctx, cs, "save_draft", map[string]any{"to": []string{me}, "subject": dsub, "body": "first"})
	upd := mustCall(t, ctx, cs, "update_draft", map[string]any{"draft_id": saved["draft_id"], "to": []string{me}, "subject": dsub, "body": "second"})
	if upd["replaced_draft_id"] != saved["draft_id"] {
		t.Fatalf("update_draft = %v", upd)
	}
	if n := len(find(saved["folder"].(string), dsub)); n != 1 {
		t.Fatalf("Drafts holds %d copies after update_draft, want 1", n)
	}
	sent := mustCall(t, ctx, cs, "send_draft", map[string]any{"draft_id": upd["draft_id"]})
	if sent["success"] != true || sent["draft_removed"] != true {
		t.Fatalf("send_draft = %v", sent)
	}
	if n := len(find(saved["folder"].(string), dsub)); n != 0 {
		t.Fatalf("Drafts holds %d copies after send_draft, want 0", n)
	}
	eventually(t, "the sent draft in INBOX", func() bool { return len(find("INBOX", dsub)) == 1 })

	// delete_email: a dry run changes nothing, then the message goes to Trash.
	dry := mustCall(t, ctx, cs, "delete_email", map[string]any{"uid": first["id"], "dry_run": true})
	if len(find("INBOX", subject)) == 0 {
		t.Fatalf("delete_email dry_run removed the message: %v", dry)
	}
	del := mustCall(t, ctx, cs, "delete_email", map[string]any{"uid": first["id"]})
	trash, _ := del["trash_folder"].(string)
	if trash == "" || len(find(trash, subject)) == 0 {
		t.Fatalf("delete_email = %v; the message is not in Trash", del)
	}

	// Folders with a non-ASCII name.
	name := fmt.Sprintf("Entwürfe %d", time.Now().UnixNano()%1e6)
	mustCall(t, ctx, cs, "create_folder", map[string]any{"name": name})
	ren := mustCall(t, ctx, cs, "rename_folder", map[string]any{"from": name, "to": name + " Ärger"})
	mustCall(t, ctx, cs, "delete_folder", map[string]any{"name": ren["to"]})
	out, isErr := call(t, ctx, cs, "delete_folder", map[string]any{"name": "INBOX"})
	if e, _ := out["error"].(map[string]any); !isErr || e["code"] != "INVALID_ARGUMENT" {
		t.Fatalf("delete_folder INBOX = %v, want INVALID_ARGUMENT", out)
	}
}
