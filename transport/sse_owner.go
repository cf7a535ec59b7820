package transport

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sync"
)

// sseOwners binds each legacy SSE session to the API key that opened it: a
// POST /message with another key's session id is answered exactly as an
// unknown session, so one key holder can neither drive nor probe the
// sessions of another. (/mcp is stateless: there are no sessions to bind.)
type sseOwners struct {
	caller func(context.Context) string
	mu     sync.Mutex
	owner  map[string]string // session id → caller id
}

// sessionSlot carries the id the generator made back to the /sse wrapper,
// which forgets it when the stream ends.
type sessionSlot struct{ id string }

type sessionSlotKey struct{}

// newID is mcp-go's session id generator: a random id, recorded with the
// caller of the /sse request that asked for it.
func (o *sseOwners) newID(ctx context.Context, _ *http.Request) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := hex.EncodeToString(b[:])
	o.mu.Lock()
	o.owner[id] = o.caller(ctx)
	o.mu.Unlock()
	if slot, ok := ctx.Value(sessionSlotKey{}).(*sessionSlot); ok {
		slot.id = id
	}
	return id, nil
}

// stream wraps GET /sse: the session's owner is forgotten when it ends.
func (o *sseOwners) stream(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slot := &sessionSlot{}
		w = &keepCORS{ResponseWriter: w, origin: w.Header().Get(allowOrigin)}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionSlotKey{}, slot)))
		if slot.id != "" {
			o.mu.Lock()
			delete(o.owner, slot.id)
			o.mu.Unlock()
		}
	})
}

// message wraps POST /message: a session of another caller becomes an
// unknown one.
func (o *sseOwners) message(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("sessionId")
		o.mu.Lock()
		owner, known := o.owner[id]
		o.mu.Unlock()
		if known && owner != o.caller(r.Context()) {
			r2 := r.Clone(r.Context())
			q := r2.URL.Query()
			q.Set("sessionId", "not-yours")
			r2.URL.RawQuery = q.Encode()
			r = r2
		}
		next.ServeHTTP(w, r)
	})
}

const allowOrigin = "Access-Control-Allow-Origin"

// keepCORS keeps the Access-Control-Allow-Origin that the auth layer chose
// (the allowed origin, or none without an Origin): mcp-go's SSE handler
// sets "*" on every stream.
type keepCORS struct {
	http.ResponseWriter
	origin      string
	wroteHeader bool
}

func (k *keepCORS) WriteHeader(code int) {
	if !k.wroteHeader {
		k.wroteHeader = true
		if k.origin == "" {
			k.Header().Del(allowOrigin)
		} else {
			k.Header().Set(allowOrigin, k.origin)
		}
	}
	k.ResponseWriter.WriteHeader(code)
}

func (k *keepCORS) Write(p []byte) (int, error) {
	if !k.wroteHeader {
		k.WriteHeader(http.StatusOK)
	}
	return k.ResponseWriter.Write(p)
}

// Flush keeps the stream flushable (mcp-go refuses a writer without it).
func (k *keepCORS) Flush() {
	if !k.wroteHeader {
		k.WriteHeader(http.StatusOK)
	}
	if f, ok := k.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (k *keepCORS) Unwrap() http.ResponseWriter { return k.ResponseWriter }
