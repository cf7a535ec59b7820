package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// DefaultCommandCache is how long a token from a Command is reused when the
// command says nothing of its lifetime.
const DefaultCommandCache = 5 * time.Minute

// maxTokenOutput bounds what a command or file may hold.
const maxTokenOutput = 64 << 10

// Command is a token source that runs a program (no shell: the words of
// Argv) and reads an access token from its standard output: the first
// line, or JSON {"access_token": ..., "expires_in": seconds}. A token is
// reused until a minute before it expires (DefaultCommandCache without
// expires_in) or until Refused. Its standard error is not kept: it could
// hold the token.
type Command struct {
	Argv    []string
	Timeout time.Duration // per run; 0: 30 s

	mu      sync.Mutex
	tok     string
	expires time.Time
}

// Token implements the sources' interface.
func (c *Command) Token(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != "" && time.Now().Before(c.expires) {
		return c.tok, nil
	}
	if len(c.Argv) == 0 {
		return "", &ConfigError{Var: "OAUTH_TOKEN_COMMAND", Reason: "empty"}
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, c.Argv[0], c.Argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout = &limited{w: &out, n: maxTokenOutput}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &ConfigError{Var: "OAUTH_TOKEN_COMMAND", Reason: "the command failed: " + runFailure(err),
			Hint: "run it by hand to see why"}
	}
	tok, life, err := parseToken(out.Bytes())
	if err != nil {
		return "", &ConfigError{Var: "OAUTH_TOKEN_COMMAND", Reason: "its output " + err.Error()}
	}
	if life <= 0 {
		life = DefaultCommandCache + DefaultEarlyExpiry
	}
	c.tok, c.expires = tok, time.Now().Add(life-DefaultEarlyExpiry)
	return tok, nil
}

// Refused implements the sources' interface: the next Token runs the
// command again.
func (c *Command) Refused(tok string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if tok == c.tok {
		c.tok = ""
	}
}

// runFailure describes a failed run without its output.
func runFailure(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Sprintf("exit status %d", ee.ExitCode())
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var ex *exec.Error
	if errors.As(err, &ex) {
		return ex.Err.Error()
	}
	return "it could not run"
}

// File is a token source that reads an access token from a file at every
// Token (the first line, or the JSON that Command reads); something else
// keeps the file fresh.
type File struct {
	Path string
}

// Token implements the sources' interface.
func (f *File) Token(context.Context) (string, error) {
	data, err := os.ReadFile(f.Path)
	if err != nil {
		var pe *os.PathError
		reason := "cannot be read"
		if errors.As(err, &pe) {
			reason += ": " + pe.Err.Error()
		}
		return "", &ConfigError{Var: "OAUTH_ACCESS_TOKEN_FILE", Reason: reason}
	}
	if len(data) > maxTokenOutput {
		return "", &ConfigError{Var: "OAUTH_ACCESS_TOKEN_FILE", Reason: "too large for a token"}
	}
	tok, _, err := parseToken(data)
	if err != nil {
		return "", &ConfigError{Var: "OAUTH_ACCESS_TOKEN_FILE", Reason: "its content " + err.Error()}
	}
	return tok, nil
}

// Refused implements the sources' interface; the file is read anew anyway.
func (f *File) Refused(string) {}

// parseToken reads a token: JSON with access_token (and expires_in), or the
// first line.
func parseToken(b []byte) (string, time.Duration, error) {
	b = bytes.TrimSpace(b)
	if bytes.HasPrefix(b, []byte("{")) {
		var v struct {
			AccessToken string  `json:"access_token"`
			ExpiresIn   float64 `json:"expires_in"`
		}
		if json.Unmarshal(b, &v) != nil || v.AccessToken == "" {
			return "", 0, errors.New("is JSON without a string access_token")
		}
		return v.AccessToken, time.Duration(v.ExpiresIn * float64(time.Second)), validToken(v.AccessToken)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimSpace(line)
	return line, 0, validToken(line)
}

// validToken checks that a token can go into a SASL message.
func validToken(t string) error {
	if t == "" {
		return errors.New("holds no token")
	}
	for _, r := range t {
		if r <= ' ' || r == 0x7f || r > 0x7e {
			return errors.New("holds a token with blanks or control characters")
		}
	}
	return nil
}

// limited writes at most n bytes to w and drops the rest.
type limited struct {
	w interface{ Write([]byte) (int, error) }
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if len(p) > l.n {
		_, _ = l.w.Write(p[:l.n])
		l.n = 0
		return len(p), nil
	}
	l.n -= len(p)
	return l.w.Write(p)
}
