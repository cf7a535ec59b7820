package mailtest

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// OneMessage is what ScriptedIMAP serves: INBOX (UIDVALIDITY 7) with one
// message, UID 5.
type OneMessage struct {
	// BodyStructure is the FETCH data item of its structure, e.g.
	// `BODYSTRUCTURE (("text" "plain" ...) "mixed" ...)`.
	BodyStructure string
	// Part is the FETCH data item answering BODY.PEEK[2], e.g.
	// "BODY[2] NIL" or "BODY[2] {3}\r\nabc".
	Part string
}

// ScriptedIMAP serves m on 127.0.0.1 with a scripted conversation, for the
// answers no real server gives on demand (a NIL body section, a parameter
// that imapmemserver would drop). It takes any LOGIN; every connection ends
// after 20 s or 100 commands. It returns the host and port.
func ScriptedIMAP(t testing.TB, m OneMessage) (string, int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { scripted(c, m) })
		}
	})
	addr := ln.Addr().(*net.TCPAddr)
	return addr.IP.String(), addr.Port
}

// scripted runs one connection of ScriptedIMAP.
func scripted(c net.Conn, m OneMessage) {
	defer c.Close()
	const caps = "IMAP4rev1 UIDPLUS MOVE"
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
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
			out = "* 1 FETCH (UID 5 " + m.Part + ")\r\n" + tag + " OK fetched\r\n"
		case strings.HasPrefix(cmd, "UID FETCH"):
			out = "* 1 FETCH (UID 5 FLAGS () RFC822.SIZE 300 " + m.BodyStructure + ")\r\n" + tag + " OK fetched\r\n"
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
}
