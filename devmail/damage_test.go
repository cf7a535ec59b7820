package devmail_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/devmail"
	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// damageFixture is a data dir as a crash leaves it: a state.json of an
// earlier clean stop and a journal of the changes since, with the message
// files; want maps each acknowledged message (its Message-ID) to the
// folders it was in while the fixture was made (a damaged journal line of a
// COPY or MOVE loses that change, never the message), and files lists
// their message files. The data dir is kept in memory (path inside it ->
// bytes), so that no test leaves it behind.
type damageFixture struct {
	data  map[string][]byte
	want  map[string][]string
	files []string
}

var (
	fixtureOnce sync.Once
	fixture     damageFixture
)

// buildDamageFixture makes the fixture once per test binary.
func buildDamageFixture(t *testing.T) damageFixture {
	t.Helper()
	fixtureOnce.Do(func() { fixture = makeDamageFixture(t) })
	if fixture.data == nil {
		t.Fatal("no damage fixture (its making failed)")
	}
	return fixture
}

func makeDamageFixture(t *testing.T) damageFixture {
	ctx := context.Background()
	dir := t.TempDir()
	deliver := func(s *devmail.Server, subj string) {
		if err := s.Deliver(ctx, []byte(message(subj, "u@x.test", "body of "+subj)), []string{"u@x.test"}); err != nil {
			t.Fatalf("Deliver() = %v", err)
		}
	}
	// A clean run: its state is in state.json.
	s1 := startServer(t, devmail.Options{DataDir: dir})
	c1 := dialIMAP(t, s1, nil)
	for _, subj := range []string{"a1", "a2", "a3", "a4", "a5"} {
		deliver(s1, subj)
	}
	for _, name := range []string{"Projects/Alpha", "email-mcp-inboxes"} {
		if err := c1.Create(name, nil).Wait(); err != nil {
			t.Fatalf("Create(%q) = %v", name, err)
		}
	}
	appendMsg(t, c1, "Projects/Alpha", message("p1", "u@x.test", "alpha"), []imap.Flag{imap.FlagSeen}, time.Now())
	appendMsg(t, c1, "email-mcp-inboxes", message("marker", "tag@sandbox.localhost", ""), []imap.Flag{"$Inbox"}, time.Now())
	moveCopyExpunge(t, c1)
	if err := s1.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	// A second run, copied as a crash would leave it: its changes are in
	// the journal only.
	s2 := startServer(t, devmail.Options{DataDir: dir})
	c2 := dialIMAP(t, s2, nil)
	want := make(map[string][]string)
	var files []string
	view := func() {
		boxes, err := c2.List("", "*", nil).Collect()
		if err != nil {
			t.Fatalf("List() = %v", err)
		}
		for _, b := range boxes {
			for _, m := range fetchAll(t, c2, b.Mailbox) {
				id := header(m.Raw, "Message-Id")
				if !slices.Contains(want[id], b.Mailbox) {
					want[id] = append(want[id], b.Mailbox)
				}
				if f := sha256Hex(string(m.Raw)); !slices.Contains(files, f) {
					files = append(files, f)
				}
			}
		}
	}
	view()
	for _, subj := range []string{"b1", "b2", "b3", "b4"} {
		deliver(s2, subj)
	}
	if err := c2.Create("Later", nil).Wait(); err != nil {
		t.Fatalf("Create() = %v", err)
	}
	appendMsg(t, c2, "Later", message("l1", "u@x.test", "later"), nil, time.Now())
	moveCopyExpunge(t, c2)
	expunged := header(lastExpunged, "Message-Id")
	view()
	delete(want, expunged)
	files = slices.DeleteFunc(files, func(f string) bool { return f == sha256Hex(string(lastExpunged)) })
	// Journal first: a snapshot in between can only make the copy newer.
	data := make(map[string][]byte)
	paths, _ := filepath.Glob(filepath.Join(dir, "messages", "*.eml"))
	for _, p := range append([]string{filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "state.json")}, paths...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		data[rel] = b
	}
	if len(data["journal.jsonl"]) == 0 {
		t.Fatal("fixture journal is empty: a snapshot ran before the copy")
	}
	return damageFixture{data: data, want: want, files: files}
}

// moveCopyExpunge moves INBOX's first message to Archive, copies its
// second to Trash and expunges its third.
func moveCopyExpunge(t *testing.T, c *imapclient.Client) {
	t.Helper()
	msgs := fetchAll(t, c, "INBOX")
	if _, err := c.Move(imap.UIDSetNum(msgs[0].UID), "Archive").Wait(); err != nil {
		t.Fatalf("Move() = %v", err)
	}
	if _, err := c.Copy(imap.UIDSetNum(msgs[1].UID), "Trash").Wait(); err != nil {
		t.Fatalf("Copy() = %v", err)
	}
	del := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}
	if err := c.Store(imap.UIDSetNum(msgs[2].UID), del, nil).Close(); err != nil {
		t.Fatalf("Store() = %v", err)
	}
	if _, err := c.UIDExpunge(imap.UIDSetNum(msgs[2].UID)).Collect(); err != nil {
		t.Fatalf("UIDExpunge() = %v", err)
	}
	lastExpunged = msgs[2].Raw
}

// lastExpunged is the message moveCopyExpunge expunged last: a damaged
// journal line may bring it back, and its file may be removed.
var lastExpunged []byte

// damage is one change of one byte of state.json or the journal.
type damage struct {
	journal bool // else state.json
	pos     int  // taken modulo the file's length
	kind    byte // 0 replace, 1 delete, 2 insert, 3 next hex digit
	b       byte
}

func (d damage) apply(data []byte) []byte {
	if len(data) == 0 {
		return data
	}
	i := d.pos % len(data)
	switch d.kind % 4 {
	case 0:
		data[i] = d.b
	case 1:
		data = slices.Delete(data, i, i+1)
	case 2:
		data = slices.Insert(data, i, d.b)
	case 3: // one changed hex digit, as in a file name
		for j := range len(data) {
			k := (i + j) % len(data)
			if c := data[k]; '0' <= c && c <= '9' || 'a' <= c && c <= 'f' {
				data[k] = "123456789abcdef0"[strings.IndexByte("0123456789abcdef", c)]
				break
			}
		}
	}
	return data
}

// checkDamaged copies the fixture, applies the damages, starts a sandbox
// on it and checks the repair property: no acknowledged message file is
// deleted (neither at start nor by the snapshots after it), and every
// acknowledged message is readable over IMAP in its folder or in Recovered.
func checkDamaged(t *testing.T, fx damageFixture, damages []damage) {
	t.Helper()
	dir := copyFixture(t, fx, func(name string, data []byte) []byte {
		for _, d := range damages {
			if d.journal == (name == "journal.jsonl") {
				data = d.apply(data)
			}
		}
		return data
	})
	s, err := devmail.Start(context.Background(), devmail.Options{
		IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Password: testPassword, DataDir: dir,
	})
	if err != nil {
		t.Fatalf("damages %+v: Start() = %v, want the sandbox to start", damages, err)
	}
	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Login(s.Username(), testPassword).Wait(); err != nil {
		t.Fatal(err)
	}
	where := make(map[string][]string) // Message-ID -> folders
	boxes, err := c.List("", "*", nil).Collect()
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	for _, b := range boxes {
		for _, m := range fetchAll(t, c, b.Mailbox) {
			id := header(m.Raw, "Message-Id")
			where[id] = append(where[id], b.Mailbox)
		}
	}
	_ = c.Close()
	if err := s.Close(); err != nil { // its last snapshot collects garbage
		t.Fatalf("Close() = %v", err)
	}
	for id, folders := range fx.want {
		if !slices.ContainsFunc(where[id], func(f string) bool { return f == "Recovered" || slices.Contains(folders, f) }) {
			t.Errorf("damages %+v: %s is in %q, want one of %q or Recovered", damages, id, where[id], folders)
		}
	}
	for _, f := range fx.files {
		if _, err := os.Stat(filepath.Join(dir, "messages", f+".eml")); err != nil {
			t.Errorf("damages %+v: acknowledged message file %s: %v", damages, f, err)
		}
	}
}

// copyFixture copies the fixture's data dir, passing state.json and the
// journal through change.
func copyFixture(t *testing.T, fx damageFixture, change func(name string, data []byte) []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "messages"), 0o700); err != nil {
		t.Fatal(err)
	}
	for rel, data := range fx.data {
		if rel == "state.json" || rel == "journal.jsonl" {
			data = change(rel, slices.Clone(data))
		}
		if err := os.WriteFile(filepath.Join(dir, rel), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The case: one changed hex digit of a file name in state.json.
// The message it names goes to Recovered, its file stays; every other
// message keeps its folder, UIDVALIDITY and UID.
func TestStateDamageCostsOneMessage(t *testing.T) {
	fx := buildDamageFixture(t)
	ids := func(dir string) map[string]string {
		s := startServer(t, devmail.Options{DataDir: dir})
		return idsByMessageID(t, dialIMAP(t, s, nil))
	}
	before := ids(copyFixture(t, fx, func(_ string, data []byte) []byte { return data }))
	var file string
	dir := copyFixture(t, fx, func(name string, data []byte) []byte {
		if name != "state.json" {
			return data
		}
		// The message of Projects/Alpha, which the journal does not touch.
		m := regexp.MustCompile(`(?s)"name":\s*"Projects/Alpha".*?"file":\s*"([0-9a-f]{64})"`).FindSubmatchIndex(data)
		if m == nil {
			t.Fatalf("no Projects/Alpha message in state.json:\n%s", data)
		}
		i := m[2]
		file = string(data[i : i+64])
		data[i] = "1234567890abcdef"[strings.IndexByte("0123456789abcdef", data[i])]
		return data
	})
	after := ids(dir)
	if _, err := os.Stat(filepath.Join(dir, "messages", file+".eml")); err != nil {
		t.Errorf("the damaged line's message file: %v", err)
	}
	moved := 0
	for k, id := range before {
		if after[k] == id {
			continue
		}
		moved++
		if !containsValue(after, id) {
			t.Errorf("%s (%s) is gone", id, k)
		}
	}
	if moved != 1 {
		t.Errorf("%d (folder, UIDVALIDITY, UID) entries changed, want 1 (the damaged line's message, now in Recovered)", moved)
	}
}

// TestDamageNeverDeletesMail damages state.json and the journal at seeded
// random positions (one to three bytes changed, removed, inserted, or a hex
// digit changed, as in a file name) and checks the repair property each
// time: no acknowledged message file is deleted and every acknowledged
// message is still readable, in its folder or in Recovered.
func TestDamageNeverDeletesMail(t *testing.T) {
	fx := buildDamageFixture(t)
	r := rand.New(rand.NewPCG(13, 4))
	for range 150 {
		n := 1 + r.IntN(3)
		var ds []damage
		for range n {
			ds = append(ds, damage{journal: r.IntN(2) == 0, pos: r.IntN(1 << 20), kind: byte(r.IntN(4)), b: byte(r.IntN(256))})
		}
		checkDamaged(t, fx, ds)
		if t.Failed() {
			return
		}
	}
}

// FuzzStoreDamage is TestDamageNeverDeletesMail's property for any one
// damage of state.json or the journal.
func FuzzStoreDamage(f *testing.F) {
	f.Add(false, 100, byte(3), byte('0'))
	f.Add(true, 10, byte(3), byte('0'))
	f.Add(true, 0, byte(0), byte('x'))
	f.Add(false, 40, byte(1), byte(0))
	f.Fuzz(func(t *testing.T, journal bool, pos int, kind, b byte) {
		if pos < 0 {
			pos = -pos
		}
		checkDamaged(t, buildDamageFixture(t), []damage{{journal: journal, pos: pos, kind: kind, b: b}})
	})
}
