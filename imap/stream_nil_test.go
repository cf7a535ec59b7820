package imap_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
)

// nilScriptedServer is a minimal IMAP server on 127.0.0.1 for one message
// (UID 5 in INBOX, a text part and a base64 attachment at [2]). partAnswer
// is the FETCH data item it sends for BODY.PEEK[2].
func nilScriptedServer(t *testing.T, partAnswer string) (string, int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	const caps = "IMAP4rev1 UIDPLUS MOVE"
	const bs = `BODYSTRUCTURE (("text" "plain" ("charset" "us-ascii") NIL NIL "7bit" 2 1 NIL NIL NIL NIL)` +
		`("application" "octet-stream" NIL NIL NIL "base64" 8 NIL ("attachment" ("filename" "a.bin")) NIL NIL) "mixed" ("boundary" "b") NIL NIL NIL)`
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(20 * time.Second))
				r := bufio.NewReader(c)
				fmt.Fprintf(c, "* OK [CAPABILITY %s] ready\r\n", caps)
				for range 100 {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					tag, rest, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
					cmd := strings.ToUpper(rest)
					var out string
					switch {
					case strings.HasPrefix(cmd, "CAPABILITY"):
						out = "* CAPABILITY " + caps + "\r\n" + tag + " OK done\r\n"
					case strings.HasPrefix(cmd, "LOGIN"):
						out = tag + " OK [CAPABILITY " + caps + "] logged in\r\n"
					case strings.HasPrefix(cmd, "SELECT"), strings.HasPrefix(cmd, "EXAMINE"):
						out = "* 1 EXISTS\r\n* FLAGS ()\r\n* OK [UIDVALIDITY 7] v\r\n* OK [UIDNEXT 6] n\r\n" + tag + " OK [READ-WRITE] selected\r\n"
					case strings.HasPrefix(cmd, "UID FETCH") && strings.Contains(cmd, "BODY.PEEK[2]"):
						out = "* 1 FETCH (UID 5 " + partAnswer + ")\r\n" + tag + " OK fetched\r\n"
					case strings.HasPrefix(cmd, "UID FETCH"):
						out = "* 1 FETCH (UID 5 " + bs + ")\r\n" + tag + " OK fetched\r\n"
					case strings.HasPrefix(cmd, "LOGOUT"):
						fmt.Fprintf(c, "* BYE bye\r\n%s OK bye\r\n", tag)
						return
					default:
						out = tag + " OK done\r\n"
					}
					if _, err := c.Write([]byte(out)); err != nil {
						return
					}
				}
			}()
		}
	}()
	addr := ln.Addr().(*net.TCPAddr)
	return addr.IP.String(), addr.Port
}

// nilStream streams part [2] of UID 5 from a scripted server.
func nilStream(t *testing.T, partAnswer string) (string, int64, error) {
	host, port := nilScriptedServer(t, partAnswer)
	c := imap.New(imap.Options{Host: host, Port: port, Username: "u", Password: "p", Security: imap.SecurityPlain, PoolSize: 1,
		CommandTimeout: 10 * time.Second})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var buf bytes.Buffer
	n, err := c.StreamPart(ctx, "INBOX", 5, []int{2}, &buf)
	return buf.String(), n, err
}

// A server that answers BODY[2] with NIL (RFC 3501 §9: body section
// data is an nstring; RFC 2180 §4.1.3: a message expunged by another
// session may be fetched as NIL) delivered no part. StreamPart must not
// report success with 0 bytes written: download_attachment then commits
// an empty file as the attachment.
func TestStreamPartNilSection(t *testing.T) {
	// The scripted server works: with the part's bytes they stream.
	if got, _, err := nilStream(t, "BODY[2] {8}\r\nAAECAw=="); err != nil || got != "AAECAw==" {
		t.Fatalf("control: StreamPart = %q, %v", got, err)
	}
	if _, n, err := nilStream(t, "BODY[2] NIL"); err == nil {
		t.Errorf("StreamPart of a part the server answered NIL = %d bytes, nil error; want an error (ErrMessageNotFound or ErrPartNotFound)", n)
	}
}
