package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// cookieName is the session cookie.
const cookieName = "emcp_session"

// session is one signed-in browser.
type session struct {
	key     string // the API key it signed in with: each request is checked with it
	csrf    string
	expires time.Time
}

// linkGrant is an unused one-time login link.
type linkGrant struct {
	key     string
	expires time.Time
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// LoginLink returns a one-time sign-in URL under base (such as
// http://localhost:8420): usable once, within Options.LinkTTL.
func (h *Handler) LoginLink(base string) string {
	tok := randomHex(24)
	h.mu.Lock()
	h.links[tok] = linkGrant{key: h.opts.Key, expires: h.now().Add(h.opts.LinkTTL)}
	h.mu.Unlock()
	return strings.TrimRight(base, "/") + "/ui?token=" + url.QueryEscape(tok)
}

// checked runs r through the API's auth middleware with key, and calls
// next with the request as auth passed it (key id in its context, the key
// header removed). A refusal is auth's own answer (401, 403 FORBIDDEN_HOST
// or FORBIDDEN_ORIGIN).
func (h *Handler) checked(w http.ResponseWriter, r *http.Request, key string, next http.HandlerFunc) {
	r2 := r.Clone(r.Context())
	r2.URL.RawQuery = "" // the page's own parameters are read from r; auth refuses ?token=
	r2.Header.Del("Authorization")
	r2.Header.Del("X-API-Key")
	if key != "" {
		r2.Header.Set("X-API-Key", key)
	}
	h.opts.Auth(http.HandlerFunc(func(w http.ResponseWriter, passed *http.Request) {
		r3 := r.WithContext(passed.Context())
		r3.Header = passed.Header
		next(w, r3)
	})).ServeHTTP(w, r2)
}

// redeem trades a login link for a session.
func (h *Handler) redeem(w http.ResponseWriter, r *http.Request, tok string) {
	h.mu.Lock()
	g, ok := h.links[tok]
	delete(h.links, tok) // usable once, even when it failed
	for t, o := range h.links {
		if h.now().After(o.expires) {
			delete(h.links, t)
		}
	}
	h.mu.Unlock()
	if !ok || h.now().After(g.expires) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte("This login link is not valid: it was used already or has expired. Sign in with the API key at /ui.\n"))
		return
	}
	h.checked(w, r, g.key, func(w http.ResponseWriter, r *http.Request) {
		h.startSession(w, r, g.key)
		http.Redirect(w, r, "ui", http.StatusSeeOther) // relative to /ui: drops the token from the URL
	})
}

// login signs in with the key of the form (field "key").
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	key := strings.TrimSpace(r.PostFormValue("key"))
	if key == "" {
		fail(w, http.StatusUnauthorized, "UNAUTHORIZED", "type the API key (MCP_API_KEY)")
		return
	}
	h.checked(w, r, key, func(w http.ResponseWriter, r *http.Request) {
		s := h.startSession(w, r, key)
		writeJSON(w, http.StatusOK, map[string]any{"csrf": s.csrf})
	})
}

func (h *Handler) startSession(w http.ResponseWriter, r *http.Request, key string) *session {
	id := randomHex(32)
	s := &session{key: key, csrf: randomHex(24), expires: h.now().Add(h.opts.SessionTTL)}
	h.mu.Lock()
	for k, o := range h.sessions {
		if h.now().After(o.expires) {
			delete(h.sessions, k)
		}
	}
	h.sessions[id] = s
	h.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: "/ui", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: h.opts.Secure || r.TLS != nil,
		MaxAge: int(h.opts.SessionTTL.Seconds())})
	return s
}

func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(cookieName); err == nil {
		h.mu.Lock()
		delete(h.sessions, c.Value)
		h.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/ui", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
	writeJSON(w, http.StatusOK, map[string]any{"signed_out": true})
}

// sessionOf returns r's live session.
func (h *Handler) sessionOf(r *http.Request) *session {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[c.Value]
	if s == nil || h.now().After(s.expires) {
		return nil
	}
	return s
}

// signedIn lets through requests of a live session, checked by the API's
// auth middleware with the session's key; changes (write) also need the
// session's CSRF token in X-CSRF-Token.
func (h *Handler) signedIn(write bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := h.sessionOf(r)
		if s == nil {
			// No session: auth answers, with the API's own refusal (a bad
			// Host or Origin first, else 401 for the missing key).
			h.checked(w, r, "", func(w http.ResponseWriter, r *http.Request) {
				fail(w, http.StatusUnauthorized, "UNAUTHORIZED", "sign in first")
			})
			return
		}
		if write && subtle.ConstantTimeCompare([]byte(r.Header.Get("X-CSRF-Token")), []byte(s.csrf)) != 1 {
			fail(w, http.StatusForbidden, "CSRF", "missing or wrong X-CSRF-Token: reload the page")
			return
		}
		h.checked(w, r, s.key, func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(withSession(r.Context(), s)))
		})
	})
}
