package devmail_test

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/devmail"
	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// childEnv makes the test binary a sandbox process (see TestMain) on the
// data dir it names; SIGTERM closes it cleanly, SIGKILL is a crash.
const childEnv = "DEVMAIL_TEST_CHILD_DATA_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(runChild(dir))
	}
	os.Exit(m.Run())
}

// runChild serves a sandbox on free ports and prints them, then runs until
// SIGTERM (a clean Close) or SIGKILL.
func runChild(dir string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	s, err := devmail.Start(ctx, devmail.Options{
		IMAPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Password: testPassword, DataDir: dir,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	fmt.Printf("ready %s %s\n", s.IMAPAddr(), s.SMTPAddr())
	<-ctx.Done()
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "child close:", err)
		return 1
	}
	return 0
}

// child is a sandbox running in another process.
type child struct {
	cmd      *exec.Cmd
	imapAddr string
	smtpAddr string
}

func startChild(t *testing.T, dir string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	var c child
	if _, serr := fmt.Sscanf(line, "ready %s %s", &c.imapAddr, &c.smtpAddr); err != nil || serr != nil {
		t.Fatalf("child did not start: %q, %v, %v", line, err, serr)
	}
	c.cmd = cmd
	return &c
}

func (c *child) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal child: %v", err)
	}
	err := c.cmd.Wait()
	if sig == syscall.SIGTERM && err != nil {
		t.Fatalf("child after SIGTERM: %v, want exit 0", err)
	}
}

func (c *child) dial(t *testing.T) *imapclient.Client {
	t.Helper()
	ic, err := imapclient.DialInsecure(c.imapAddr, nil)
	if err != nil {
		t.Fatalf("DialInsecure() = %v", err)
	}
	t.Cleanup(func() { _ = ic.Close() })
	if err := ic.Login(devmail.DefaultUsername, testPassword).Wait(); err != nil {
		t.Fatalf("Login() = %v", err)
	}
	return ic
}

// idsByMessageID maps "folder uidvalidity uid" to the Message-ID there, and
// "folder uidvalidity 0" to "(folder)".
func idsByMessageID(t *testing.T, c *imapclient.Client) map[string]string {
	t.Helper()
	boxes, err := c.List("", "*", nil).Collect()
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	out := make(map[string]string)
	for _, b := range boxes {
		v := uidValidity(t, c, b.Mailbox)
		out[fmt.Sprintf("%s %d 0", b.Mailbox, v)] = "(folder)"
		for _, m := range fetchAll(t, c, b.Mailbox) {
			out[fmt.Sprintf("%s %d %d", b.Mailbox, v, m.UID)] = header(m.Raw, "Message-Id")
		}
	}
	return out
}

// TestRestartCycleKeepsIDs runs the sandbox in a child process over one
// data dir and stops it five times, by SIGTERM and by SIGKILL, each time
// while deliveries are under way, with moves, copies, expunges and the
// test-inbox marker folder in between. After each start, every message that
// got its 250 is there, every (folder, UIDVALIDITY, UID) seen before the
// stop still names the same message or none (a move or expunge that the
// crash lost may bring it back only where it was), and no UID is given to
// a different message.
func TestRestartCycleKeepsIDs(t *testing.T) {
	dir := t.TempDir()
	acked := make(map[string]bool)  // Message-ID -> 250 seen
	seen := make(map[string]string) // "folder uv uid" -> Message-ID, ever
	for round, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGKILL, syscall.SIGKILL, syscall.SIGTERM} {
		c := startChild(t, dir)
		ic := c.dial(t)
		now := idsByMessageID(t, ic)
		checkIDs(t, round, seen, now)
		for id := range acked {
			if !containsValue(now, id) {
				t.Errorf("round %d: acknowledged %s is gone", round, id)
			}
		}
		maps.Copy(seen, now)
		if round == 0 {
			if err := ic.Create("email-mcp-inboxes", nil).Wait(); err != nil {
				t.Fatalf("Create() = %v", err)
			}
			appendMsg(t, ic, "email-mcp-inboxes", "Message-ID: <marker@x.test>\r\nSubject: inbox marker\r\n\r\n", []imap.Flag{"$EmailMCPInbox"}, time.Now())
			acked["<marker@x.test>"] = true
		}
		// Deliveries in flight while the process is stopped.
		var wg sync.WaitGroup
		var mu sync.Mutex
		for w := range 3 {
			wg.Go(func() {
				for i := range 40 {
					id := fmt.Sprintf("<r%d-w%d-%d@x.test>", round, w, i)
					msg := fmt.Sprintf("Message-ID: %s\r\nSubject: r%d\r\n\r\nbody\r\n", id, round)
					if send(c.smtpAddr, "a@x.test", []string{"u@x.test"}, msg) != nil {
						return // the process is gone
					}
					mu.Lock()
					acked[id] = true
					mu.Unlock()
				}
			})
		}
		// Some structural changes while they run.
		mu.Lock()
		start := len(acked)
		mu.Unlock()
		eventually(t, "15 more deliveries", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(acked) >= start+15
		})
		msgs := fetchAll(t, ic, "INBOX")
		if _, err := ic.Move(imap.UIDSetNum(msgs[0].UID), "Archive").Wait(); err != nil {
			t.Fatalf("Move() = %v", err)
		}
		if _, err := ic.Copy(imap.UIDSetNum(msgs[1].UID), "Trash").Wait(); err != nil {
			t.Fatalf("Copy() = %v", err)
		}
		del := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}
		if err := ic.Store(imap.UIDSetNum(msgs[2].UID), del, nil).Close(); err != nil {
			t.Fatalf("Store() = %v", err)
		}
		if _, err := ic.UIDExpunge(imap.UIDSetNum(msgs[2].UID)).Collect(); err != nil {
			t.Fatalf("UIDExpunge() = %v", err)
		}
		mu.Lock()
		delete(acked, header(msgs[2].Raw, "Message-Id"))
		mu.Unlock()
		seen2 := idsByMessageID(t, ic)
		checkIDs(t, round, seen, seen2)
		maps.Copy(seen, seen2)
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		t.Logf("round %d: %d acknowledged so far; stopping with %v", round, n, sig)
		c.stop(t, sig)
		wg.Wait()
	}
	c := startChild(t, dir)
	ic := c.dial(t)
	final := idsByMessageID(t, ic)
	checkIDs(t, 5, seen, final)
	for id := range acked {
		if !containsValue(final, id) {
			t.Errorf("final: acknowledged %s is gone", id)
		}
	}
	c.stop(t, syscall.SIGTERM)
}

// checkIDs fails for a (folder, UIDVALIDITY, UID) that named one message
// before and names another now.
func checkIDs(t *testing.T, round int, before, now map[string]string) {
	t.Helper()
	for k, id := range now {
		if old, ok := before[k]; ok && old != id {
			t.Errorf("round %d: %s named %s before and names %s now", round, k, old, id)
		}
	}
	// A folder keeps its UIDVALIDITY: the "folder uv 0" keys.
	had := make(map[string]string)
	for k := range before {
		if f := strings.Fields(k); len(f) == 3 && f[2] == "0" {
			had[f[0]] = f[1]
		}
	}
	for k := range now {
		if f := strings.Fields(k); len(f) == 3 && f[2] == "0" && had[f[0]] != "" && had[f[0]] != f[1] {
			t.Errorf("round %d: folder %s had UIDVALIDITY %s, now %s", round, f[0], had[f[0]], f[1])
		}
	}
}

func containsValue(m map[string]string, v string) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}
