package auth

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
)

// The error codes of the JSON bodies that refused requests get.
const (
	CodeUnauthorized    = "UNAUTHORIZED"
	CodeKeyInQuery      = "API_KEY_IN_QUERY"
	CodeForbiddenOrigin = "FORBIDDEN_ORIGIN"
	CodeForbiddenHost   = "FORBIDDEN_HOST"
)

// refusal is a prepared error answer.
type refusal struct {
	status int
	body   []byte
}

var (
	unauthorized = newRefusal(http.StatusUnauthorized, CodeUnauthorized,
		"missing or invalid API key")
	keyInQueryRefusal = newRefusal(http.StatusBadRequest, CodeKeyInQuery,
		"do not put the API key in the URL: send it in the X-API-Key header or as Authorization: Bearer")
	forbiddenOrigin = newRefusal(http.StatusForbidden, CodeForbiddenOrigin,
		"this Origin is not allowed (see MCP_ALLOWED_ORIGINS)")
	forbiddenHost = newRefusal(http.StatusForbidden, CodeForbiddenHost,
		"this Host is not allowed (see MCP_ALLOWED_HOSTS and MCP_BASE_URL)")
)

// newRefusal builds {"error":{"code":…,"message":…}}.
func newRefusal(status int, code, message string) refusal {
	type body struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	b, err := json.Marshal(map[string]body{"error": {code, message}})
	if err != nil {
		panic(err)
	}
	return refusal{status, b}
}

// refuse logs the refusal (never the key or the query) and writes the answer.
func (g *guard) refuse(w http.ResponseWriter, r *http.Request, f refusal, level slog.Level, reason string, attrs ...slog.Attr) {
	all := append([]slog.Attr{
		slog.String("reason", reason),
		slog.Int("status", f.status),
		slog.String("remote", r.RemoteAddr),
		slog.String("method", r.Method),
		slog.String("path", logPath(r.URL.Path)),
	}, attrs...)
	g.logger.LogAttrs(r.Context(), level, "request refused", all...)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	// A refused client gets no keep-alive: its connection does not hold a
	// slot of MCP_MAX_CONNECTIONS, and the server does not wait for a body
	// it will not read.
	h.Set("Connection", "close")
	w.WriteHeader(f.status)
	_, _ = w.Write(f.body)
}

// routeWords are the path segments of our endpoints; logPath shows only
// those.
var routeWords = map[string]bool{"": true, "mcp": true, "sse": true, "message": true, "tools": true,
	"call": true, "health": true, "ready": true, ".well-known": true}

// logPath is a refused request's path as the log shows it: segments that
// are not ours become "…". A key can reach the path (an escaped "?", a
// ";" parameter, a segment of its own), and the guard knows only the keys'
// digests, so it cannot find them there.
func logPath(p string) string {
	segs := strings.Split(clip(p), "/")
	for i, s := range segs {
		if !routeWords[s] {
			segs[i] = "…"
		}
	}
	return strings.Join(segs, "/")
}

// clip bounds a client-chosen string before it is logged.
func clip(s string) string {
	const maxLogged = 200
	if len(s) > maxLogged {
		return s[:maxLogged] + "..."
	}
	return s
}
