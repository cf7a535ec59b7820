package devmail_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/devmail"
	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// snapshotOf reads every folder: name -> messages (raw, sorted flags, date).
func snapshotOf(t *testing.T, c *imapclient.Client) map[string][]string {
	t.Helper()
	boxes, err := c.List("", "*", nil).Collect()
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	out := make(map[string][]string)
	for _, b := range boxes {
		var msgs []string
		for _, m := range fetchAll(t, c, b.Mailbox) {
			flags := make([]string, 0, len(m.Flags))
			for _, f := range m.Flags {
				flags = append(flags, string(f))
			}
			slices.Sort(flags)
			msgs = append(msgs, strings.Join(flags, ",")+"|"+m.Date.UTC().Format(time.RFC3339)+"|"+string(m.Raw))
		}
		out[b.Mailbox+attrString(b.Attrs)] = msgs
	}
	return out
}

// idsOf gives every folder's UIDVALIDITY, UIDNEXT and, per UID, the
// message's Message-ID and Subject: what a restart must keep.
func idsOf(t *testing.T, c *imapclient.Client) map[string]string {
	t.Helper()
	boxes, err := c.List("", "*", nil).Collect()
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	out := make(map[string]string)
	for _, b := range boxes {
		st, err := c.Status(b.Mailbox, &imap.StatusOptions{UIDValidity: true, UIDNext: true}).Wait()
		if err != nil {
			t.Fatalf("Status(%q) = %v", b.Mailbox, err)
		}
		ids := fmt.Sprintf("uidvalidity=%d uidnext=%d", st.UIDValidity, st.UIDNext)
		for _, m := range fetchAll(t, c, b.Mailbox) {
			ids += fmt.Sprintf(" %d=%s", m.UID, header(m.Raw, "Subject")+header(m.Raw, "Message-Id"))
		}
		out[b.Mailbox] = ids
	}
	return out
}

func attrString(attrs []imap.MailboxAttr) string {
	var s []string
	for _, a := range attrs {
		s = append(s, string(a))
	}
	return "[" + strings.Join(s, " ") + "]"
}

func uidValidity(t *testing.T, c *imapclient.Client, folder string) uint32 {
	t.Helper()
	st, err := c.Status(folder, &imap.StatusOptions{UIDValidity: true}).Wait()
	if err != nil {
		t.Fatalf("Status(%q) = %v", folder, err)
	}
	return st.UIDValidity
}

func appendMsg(t *testing.T, c *imapclient.Client, folder, raw string, flags []imap.Flag, date time.Time) {
	t.Helper()
	ac := c.Append(folder, int64(len(raw)), &imap.AppendOptions{Flags: flags, Time: date})
	if _, err := io.WriteString(ac, raw); err != nil {
		t.Fatalf("Append Write() = %v", err)
	}
	if err := ac.Close(); err != nil {
		t.Fatalf("Append Close() = %v", err)
	}
	if _, err := ac.Wait(); err != nil {
		t.Fatalf("Append(%q) = %v", folder, err)
	}
}

func TestPersistenceAcrossRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mail")
	s1 := startServer(t, devmail.Options{DataDir: dir})
	for _, subj := range []string{"one", "two", "three"} {
		if err := sendSMTP(t, s1, "app@x.test", []string{"u@x.test"}, message(subj, "u@x.test", "body "+subj)); err != nil {
			t.Fatalf("SendMail() = %v", err)
		}
	}
	if err := s1.Deliver(context.Background(), []byte("no header block at all\r\n"), []string{"v@x.test"}); err != nil {
		t.Fatalf("Deliver() = %v", err)
	}
	c := dialIMAP(t, s1, nil)
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		t.Fatalf("Select() = %v", err)
	}
	store := func(uid imap.UID, flags ...imap.Flag) {
		t.Helper()
		sf := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: flags}
		if err := c.Store(imap.UIDSetNum(uid), sf, nil).Close(); err != nil {
			t.Fatalf("Store() = %v", err)
		}
	}
	store(1, imap.FlagFlagged, "$Label1")
	store(4, imap.FlagSeen)
	store(3, imap.FlagDeleted)
	if err := c.Expunge().Close(); err != nil {
		t.Fatalf("Expunge() = %v", err)
	}
	if _, err := c.Move(imap.UIDSetNum(2), "Archive").Wait(); err != nil {
		t.Fatalf("Move() = %v", err)
	}
	if _, err := c.Copy(imap.UIDSetNum(4), "Trash").Wait(); err != nil {
		t.Fatalf("Copy() = %v", err)
	}
	if err := c.Create("Clients/ACME", &imap.CreateOptions{SpecialUse: []imap.MailboxAttr{imap.MailboxAttrFlagged}}).Wait(); err != nil {
		t.Fatalf("Create() = %v", err)
	}
	if err := c.Create("Gone", nil).Wait(); err != nil {
		t.Fatalf("Create() = %v", err)
	}
	appendMsg(t, c, "Gone", message("gone", "u@x.test", "x"), nil, time.Time{})
	if err := c.Delete("Gone").Wait(); err != nil {
		t.Fatalf("Delete() = %v", err)
	}
	date := time.Date(2023, 1, 2, 3, 4, 5, 0, time.UTC)
	appendMsg(t, c, "Clients/ACME", message("acme", "u@x.test", "contract"), []imap.Flag{imap.FlagSeen, "$Work"}, date)
	appendMsg(t, c, "Drafts", "Subject: header only, LF\n", []imap.Flag{imap.FlagDraft}, date)
	if err := c.Subscribe("Clients/ACME").Wait(); err != nil {
		t.Fatalf("Subscribe() = %v", err)
	}
	before := snapshotOf(t, c)
	beforeIDs := idsOf(t, c)
	if err := s1.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}

	s2 := startServer(t, devmail.Options{DataDir: dir})
	c2 := dialIMAP(t, s2, nil)
	after := snapshotOf(t, c2)
	for name, msgs := range before {
		if !slices.Equal(after[name], msgs) {
			t.Errorf("folder %s after restart:\n got %q\nwant %q", name, after[name], msgs)
		}
	}
	if len(after) != len(before) {
		t.Errorf("folders after restart = %d, want %d", len(after), len(before))
	}
	if afterIDs := idsOf(t, c2); !maps.Equal(afterIDs, beforeIDs) {
		t.Errorf("UIDVALIDITY and UIDs after restart:\n got %v\nwant %v", afterIDs, beforeIDs)
	}
	subs, err := c2.List("", "Clients/*", &imap.ListOptions{SelectSubscribed: true}).Collect()
	if err != nil || len(subs) != 1 {
		t.Errorf("subscribed Clients/* = %v, %v; want Clients/ACME", subs, err)
	}
	checkPerms(t, dir)
	if files, _ := filepath.Glob(filepath.Join(dir, "messages", "*.eml")); len(files) != 5 {
		// one, two (moved), four (and its copy: same file), acme, draft;
		// three (expunged) and gone (folder deleted) are removed.
		t.Errorf("message files = %d, want 5", len(files))
	}
}

func checkPerms(t *testing.T, dir string) {
	t.Helper()
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s mode %o, want %o", path, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Walk() = %v", err)
	}
}

// A copy of the data dir taken right after the SMTP 250 (as a crash would
// leave it) already holds the message.
func TestPersistedBeforeReply(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, devmail.Options{DataDir: dir})
	msg := message("durable", "u@x.test", "kept")
	if err := sendSMTP(t, s, "a@x.test", []string{"u@x.test"}, msg); err != nil {
		t.Fatalf("SendMail() = %v", err)
	}
	crash := t.TempDir()
	// Journal before state: a snapshot in between can then only make the
	// copy newer, never lose the entry.
	for _, name := range []string{"journal.jsonl", "state.json"} {
		copyFile(t, filepath.Join(dir, name), filepath.Join(crash, name))
	}
	files, _ := filepath.Glob(filepath.Join(dir, "messages", "*.eml"))
	for _, f := range files {
		copyFile(t, f, filepath.Join(crash, "messages", filepath.Base(f)))
	}
	s2 := startServer(t, devmail.Options{DataDir: crash})
	msgs := fetchAll(t, dialIMAP(t, s2, nil), "INBOX")
	if len(msgs) != 1 || !bytes.HasSuffix(msgs[0].Raw, []byte(msg)) {
		t.Fatalf("INBOX after crash = %d messages, want the delivered one", len(msgs))
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatalf("ReadFile() = %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		t.Fatalf("MkdirAll() = %v", err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatalf("WriteFile() = %v", err)
	}
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestCorruptedStoreTolerated(t *testing.T) {
	tests := []struct {
		name       string
		corrupt    func(t *testing.T, dir string) (kept string)
		wantFolder string
		wantCount  int
		wantLog    string
	}{
		{
			name: "truncated message file",
			corrupt: func(t *testing.T, dir string) string {
				files, _ := filepath.Glob(filepath.Join(dir, "messages", "*.eml"))
				if err := os.Truncate(files[0], 10); err != nil {
					t.Fatal(err)
				}
				return files[0]
			},
			wantFolder: "INBOX", wantCount: 1, wantLog: "skipping unreadable message file",
		},
		{
			name: "garbage state file",
			corrupt: func(t *testing.T, dir string) string {
				if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("{not json"), 0o600); err != nil {
					t.Fatal(err)
				}
				return ""
			},
			wantFolder: "Recovered", wantCount: 2, wantLog: "state file damaged",
		},
		{
			name: "torn journal line",
			corrupt: func(t *testing.T, dir string) string {
				f, err := os.OpenFile(filepath.Join(dir, "journal.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if _, err := f.WriteString(`{"seq":99,"op":"app`); err != nil {
					t.Fatal(err)
				}
				return ""
			},
			wantFolder: "INBOX", wantCount: 2, wantLog: "skipping damaged journal line",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s1 := startServer(t, devmail.Options{DataDir: dir})
			for _, subj := range []string{"a", "b"} {
				if err := s1.Deliver(context.Background(), []byte(message(subj, "u@x.test", subj)), nil); err != nil {
					t.Fatalf("Deliver() = %v", err)
				}
			}
			if err := s1.Close(); err != nil {
				t.Fatalf("Close() = %v", err)
			}
			kept := tt.corrupt(t, dir)
			var logs syncBuffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
			s2 := startServer(t, devmail.Options{DataDir: dir, Logger: logger})
			if got := len(fetchAll(t, dialIMAP(t, s2, nil), tt.wantFolder)); got != tt.wantCount {
				t.Errorf("%s holds %d messages, want %d", tt.wantFolder, got, tt.wantCount)
			}
			if err := s2.Close(); err != nil {
				t.Fatalf("Close() = %v", err)
			}
			if !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("log = %q, want %q", logs.String(), tt.wantLog)
			}
			if kept != "" {
				if _, err := os.Stat(kept); err != nil {
					t.Errorf("corrupted file was removed: %v", err)
				}
			}
		})
	}
}

// The journal is replayed in order on top of the last snapshot: the format
// is the one the package doc describes.
func TestJournalReplay(t *testing.T) {
	dir := t.TempDir()
	msg := "Subject: replayed\r\n\r\nhello\r\n"
	file := sha256Hex(msg)
	writeFile := func(name, content string) {
		t.Helper()
		copyTo := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(copyTo), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(copyTo, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeFile("messages/"+file+".eml", msg)
	writeFile("state.json", `{"version":1,"uid_validity":40,"journal_seq":2,"folders":[
		{"name":"INBOX","subscribed":true,"messages":[{"file":"`+file+`","flags":["\\Seen"],"date":"2024-01-02T03:04:05Z"}]}]}`)
	writeFile("journal.jsonl", `{"seq":2,"op":"append","folder":"INBOX","file":"`+file+`","date":"2024-01-02T03:04:05Z"}
{"seq":3,"op":"create","folder":"Old","special_use":["\\Archive"],"uid_validity":41}
{"seq":4,"op":"append","folder":"Old","file":"`+file+`","flags":["\\Flagged"],"date":"2024-02-03T04:05:06Z"}
{"seq":5,"op":"rename","folder":"Old","new_name":"New"}
`)
	s := startServer(t, devmail.Options{DataDir: dir})
	c := dialIMAP(t, s, nil)
	if inbox := fetchAll(t, c, "INBOX"); len(inbox) != 1 || !slices.Contains(inbox[0].Flags, imap.FlagSeen) {
		t.Errorf("INBOX = %+v, want 1 seen message (seq 2 is already in the state)", inbox)
	}
	moved := fetchAll(t, c, "New")
	if len(moved) != 1 || !slices.Contains(moved[0].Flags, imap.FlagFlagged) || string(moved[0].Raw) != msg {
		t.Errorf("New = %+v, want the replayed message", moved)
	}
	boxes, err := c.List("", "New", nil).Collect()
	if err != nil || len(boxes) != 1 || !slices.Contains(boxes[0].Attrs, imap.MailboxAttrArchive) {
		t.Errorf("LIST New = %v, %v; want \\Archive", boxes, err)
	}
	if v := uidValidity(t, c, "INBOX"); v <= 41 {
		t.Errorf("INBOX UIDVALIDITY = %d, want above the stored 41", v)
	}
}

// Deliveries, moves and snapshots running at once lose nothing.
func TestConcurrentDeliveriesPersist(t *testing.T) {
	const senders, each = 4, 8
	dir := t.TempDir()
	s1 := startServer(t, devmail.Options{DataDir: dir})
	c := dialIMAP(t, s1, nil)
	var wg sync.WaitGroup
	errs := make(chan error, senders*each)
	for i := range senders {
		wg.Go(func() {
			for j := range each {
				subj := "m" + string(rune('a'+i)) + string(rune('a'+j))
				if err := send(s1.SMTPAddr(), "a@x.test", []string{"u@x.test"}, message(subj, "u@x.test", subj)); err != nil {
					errs <- err
				}
			}
		})
	}
	moved := 0
	for range 20 { // bounded: move what has arrived while the senders run
		msgs := fetchAll(t, c, "INBOX")
		if len(msgs) > 0 {
			if _, err := c.Move(imap.UIDSetNum(msgs[0].UID), "Archive").Wait(); err != nil {
				t.Fatalf("Move() = %v", err)
			}
			moved++
		}
		time.Sleep(5 * time.Millisecond)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("SendMail() = %v", err)
	}
	if err := s1.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	s2 := startServer(t, devmail.Options{DataDir: dir})
	c2 := dialIMAP(t, s2, nil)
	inbox, archive := len(fetchAll(t, c2, "INBOX")), len(fetchAll(t, c2, "Archive"))
	if inbox+archive != senders*each || archive != moved {
		t.Errorf("after restart INBOX=%d Archive=%d, want %d in all and %d archived", inbox, archive, senders*each, moved)
	}
}

// doc.go: "Start first advances imapmemserver's UIDVALIDITY counter past
// every value the data dir has seen, so a UID is never reused under the same
// UIDVALIDITY". After a state.json that does not parse was set aside (its
// messages go to Recovered, the journal is replayed), the counter starts
// again from the journal's values only, so INBOX gets UIDVALIDITY 1 again
// and UID 1 names another message.
func TestUIDValidityNotReusedAfterCorruptState(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s1 := startServer(t, devmail.Options{DataDir: dir})
	c1 := dialIMAP(t, s1, nil)
	for _, subj := range []string{"A", "B"} {
		if err := s1.Deliver(ctx, []byte(message(subj, "u@x.test", subj)), nil); err != nil {
			t.Fatalf("Deliver() = %v", err)
		}
	}
	before := fetchAll(t, c1, "INBOX") // selects INBOX
	v1 := uidValidity(t, c1, "INBOX")
	if err := c1.Store(imap.UIDSetNum(before[0].UID), &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}, nil).Close(); err != nil {
		t.Fatalf("Store() = %v", err)
	}
	if err := c1.Expunge().Close(); err != nil {
		t.Fatalf("Expunge() = %v", err)
	}
	journal := filepath.Join(dir, "journal.jsonl")
	eventually(t, "snapshot after EXPUNGE empties the journal", func() bool {
		fi, err := os.Stat(journal)
		return err == nil && fi.Size() == 0
	})
	if err := s1.Deliver(ctx, []byte(message("C", "u@x.test", "C")), nil); err != nil {
		t.Fatalf("Deliver() = %v", err)
	}
	// A crash now, with state.json damaged.
	crash := t.TempDir()
	copyFile(t, journal, filepath.Join(crash, "journal.jsonl"))
	files, _ := filepath.Glob(filepath.Join(dir, "messages", "*.eml"))
	for _, f := range files {
		copyFile(t, f, filepath.Join(crash, "messages", filepath.Base(f)))
	}
	if err := os.WriteFile(filepath.Join(crash, "state.json"), []byte("{torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := startServer(t, devmail.Options{DataDir: crash})
	c2 := dialIMAP(t, s2, nil)
	after := fetchAll(t, c2, "INBOX")
	v2 := uidValidity(t, c2, "INBOX")
	for _, m := range after {
		if v2 == v1 && m.UID == before[0].UID {
			t.Errorf("INBOX UIDVALIDITY %d UID %d was %q before the restart and is %q after it",
				v1, m.UID, header(before[0].Raw, "Subject"), header(m.Raw, "Subject"))
		}
	}
}

// store.go checkOrphans: "After a state file was lost they are the only copy
// of the mail: they go into a "Recovered" folder instead"; doc.go: "Damage
// is survived, never repaired by deleting". A missing state.json is taken
// for an empty store and the start-up snapshot deletes every message file.
func TestMissingStateKeepsMail(t *testing.T) {
	dir := t.TempDir()
	s1 := startServer(t, devmail.Options{DataDir: dir})
	if err := s1.Deliver(context.Background(), []byte(message("keep", "u@x.test", "A")), nil); err != nil {
		t.Fatalf("Deliver() = %v", err)
	}
	if err := s1.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "state.json")); err != nil {
		t.Fatal(err)
	}
	s2 := startServer(t, devmail.Options{DataDir: dir})
	c := dialIMAP(t, s2, nil)
	n := len(fetchAll(t, c, "INBOX"))
	if _, err := c.Status("Recovered", &imap.StatusOptions{NumMessages: true}).Wait(); err == nil {
		n += len(fetchAll(t, c, "Recovered"))
	}
	files, _ := filepath.Glob(filepath.Join(dir, "messages", "*.eml"))
	if n != 1 || len(files) != 1 {
		t.Errorf("after a start without state.json: %d messages served, %d message files on disk; want the delivered one kept", n, len(files))
	}
}
