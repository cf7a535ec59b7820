package transport

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"time"
)

// Request bodies: bounded in size and in time.
//
// http.Server's ReadHeaderTimeout bounds the headers, but nothing bounded
// the body: a request with full headers, a Content-Length and no body held
// its connection for ever (eight of them with MCP_MAX_CONNECTIONS=8 made
// every endpoint answer 503). http.Server's ReadTimeout cannot be used: it
// stays on the connection while the handler runs, and when it passes, the
// server's background read cancels the request context of a long wait or
// SSE stream. So the deadline is set here, per request, and cleared once the
// body is in.

// bodyPace is how fast a body must arrive: all of it within timeout, plus
// the time its bytes need at rate (bytes a second).
type bodyPace struct {
	timeout time.Duration
	rate    int64
}

// deadline is when a body must be complete, given start and the bytes so far.
func (p bodyPace) deadline(start time.Time, n int64) time.Time {
	return start.Add(p.timeout + time.Duration(n)*time.Second/time.Duration(p.rate))
}

// bodyDeadline starts the clock on every request that announces a body. A
// handler that reads it (limitBody, behind Auth) moves the deadline on as
// bytes arrive and clears it at the end. A handler that never reads it (a
// refusal, /health) leaves it: the server then gives up on the unsent body
// at once instead of waiting for it before it can answer or close.
func bodyDeadline(p bodyPace, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(p.deadline(time.Now(), 0))
		body := &seenBody{ReadCloser: r.Body}
		r.Body = body
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			// No GET route reads a body: do not wait for one before
			// answering, close the connection after.
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
		if !body.eof {
			// Unread (refused, or not a route that reads bodies): the
			// server would wait for it to reuse the connection.
			_ = rc.SetReadDeadline(time.Now())
		}
	})
}

// seenBody notes whether its body was read to the end.
type seenBody struct {
	io.ReadCloser
	eof bool
}

func (b *seenBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// memBody is a request body read into memory by limitBody; dropCancellations
// looks at its bytes without consuming them.
type memBody struct {
	*bytes.Reader
	b []byte
}

func (m memBody) Close() error  { return nil }
func (m memBody) Bytes() []byte { return m.b }

// limitBody reads the body of an authenticated request, bounded: 413 over
// max, 408 when it does not arrive at p's pace. mcp-go reads whole bodies
// with io.ReadAll and would answer a truncated read with a generic 400, so
// the body is read here and handed on from memory. Once it is in, the read
// deadline is cleared: the response may stream for as long as the call
// runs.
func limitBody(max int64, p bodyPace, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		paced := &pacedBody{r: r.Body, rc: rc, pace: p, start: time.Now()}
		if r.ContentLength > max {
			tooLarge(w, rc, paced)
			return
		}
		if r.Body != nil && r.Body != http.NoBody && r.Method != http.MethodGet {
			b, err := io.ReadAll(io.LimitReader(paced, max+1))
			switch {
			case errors.Is(err, os.ErrDeadlineExceeded):
				w.Header().Set("Connection", "close")
				writeJSON(w, http.StatusRequestTimeout, errBody("REQUEST_TIMEOUT", "the request body did not arrive in time"))
				return
			case err != nil:
				w.Header().Set("Connection", "close")
				writeJSON(w, http.StatusBadRequest, errBody("BAD_REQUEST", "request body could not be read"))
				return
			case int64(len(b)) > max:
				tooLarge(w, rc, paced)
				return
			}
			_ = rc.SetReadDeadline(time.Time{})
			r.Body = memBody{Reader: bytes.NewReader(b), b: b}
		}
		next.ServeHTTP(w, r)
	})
}

// drainMax bounds what tooLarge reads and throws away.
const drainMax = 16 << 20

// tooLarge answers 413 and closes the connection. The answer is sent first;
// then up to drainMax bytes of the rest of the body are read and discarded,
// at the body's pace: a client still writing when the server closes gets a
// TCP reset, and an HTTP client that sees the reset before the answer
// reports a broken connection instead of the 413 (a lingering close, as
// nginx does). Only an authenticated request gets here.
func tooLarge(w http.ResponseWriter, rc *http.ResponseController, body *pacedBody) {
	w.Header().Set("Connection", "close")
	writeJSON(w, http.StatusRequestEntityTooLarge, errBody("REQUEST_TOO_LARGE", "request body is too large"))
	_ = rc.Flush()
	if body.r != nil && body.r != http.NoBody {
		_, _ = io.Copy(io.Discard, io.LimitReader(body, drainMax))
	}
}

// pacedBody moves the read deadline on as the body's bytes arrive.
type pacedBody struct {
	r     io.Reader
	rc    *http.ResponseController
	pace  bodyPace
	start time.Time
	n     int64
}

func (b *pacedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		b.n += int64(n)
		_ = b.rc.SetReadDeadline(b.pace.deadline(b.start, b.n))
	}
	return n, err
}
