package imap_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// commandLog records the name of every command clients sent, in order:
// "LOGIN", "EXAMINE", "UID SEARCH"... (plaintext connections only).
type commandLog struct {
	mu    sync.Mutex
	names []string
}

func (l *commandLog) add(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.names = append(l.names, name)
}

// take returns the names recorded since the last take and forgets them.
func (l *commandLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := l.names
	l.names = nil
	return names
}

// literalAtEnd matches a line that announces a literal: {12}, {12+}.
var literalAtEnd = regexp.MustCompile(`\{(\d+)\+?\}$`)

// cmdParser splits what a client sends into commands: one per line, except
// that a line ending in a literal continues after the literal's bytes.
type cmdParser struct {
	log  *commandLog
	line []byte
	skip int64 // literal bytes still to pass over
	cont bool  // the next line continues the current command
}

func (p *cmdParser) feed(b []byte) {
	for len(b) > 0 {
		if p.skip > 0 {
			n := min(int64(len(b)), p.skip)
			p.skip -= n
			b = b[n:]
			continue
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.line = append(p.line, b...)
			return
		}
		p.line = append(p.line, b[:i+1]...)
		b = b[i+1:]
		p.endLine(strings.TrimRight(string(p.line), "\r\n"))
		p.line = p.line[:0]
	}
}

func (p *cmdParser) endLine(line string) {
	if !p.cont {
		if f := strings.Fields(line); len(f) >= 2 {
			name := strings.ToUpper(f[1])
			if name == "UID" && len(f) >= 3 {
				name += " " + strings.ToUpper(f[2])
			}
			p.log.add(name)
		}
	}
	p.cont = false
	if m := literalAtEnd.FindStringSubmatch(line); m != nil {
		p.skip, _ = strconv.ParseInt(m[1], 10, 64)
		p.cont = true
	}
}
