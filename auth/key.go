package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
)

// queryKeyParams are the query parameters that look like a key in the URL.
var queryKeyParams = []string{"api_key", "apikey", "key", "token", "access_token"}

// IDOf is the id of an API key as KeyID reports it: the first 8 hex digits
// of its SHA-256. It names a key in logs and limits without revealing it.
func IDOf(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:4])
}

// keyInQuery returns the name of a non-empty key-like query parameter, or "".
// The name returned is ours, never the raw one from the URL. The raw query
// is split at "&" and ";" both: url.Values drops every segment holding a
// ";", which let "?api_key=KEY;x=y" through.
func keyInQuery(r *http.Request) string {
	for seg := range strings.FieldsFuncSeq(r.URL.RawQuery, func(c rune) bool { return c == '&' || c == ';' }) {
		name, val, _ := strings.Cut(seg, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if val == "" {
			continue
		}
		for _, p := range queryKeyParams {
			if strings.EqualFold(strings.TrimSpace(name), p) {
				return p
			}
		}
	}
	return ""
}

// presentedKey returns the key the request carries: X-API-Key when it is
// non-empty, else an Authorization Bearer token. reason is set when the
// headers are ambiguous.
func presentedKey(r *http.Request) (key, reason string) {
	vals := r.Header.Values("X-API-Key")
	if len(vals) > 1 {
		return "", "several X-API-Key headers"
	}
	if len(vals) == 1 && strings.TrimSpace(vals[0]) != "" {
		return strings.TrimSpace(vals[0]), ""
	}
	auths := r.Header.Values("Authorization")
	if len(auths) > 1 {
		return "", "several Authorization headers"
	}
	if len(auths) == 0 {
		return "", ""
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(auths[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", "authorization scheme is not Bearer"
	}
	return strings.TrimSpace(token), ""
}

// checkKey compares the presented key with every configured key, in
// constant time and without early exit, and returns the matching key's id,
// or the reason for refusing the request.
func (g *guard) checkKey(r *http.Request) (id, reason string) {
	key, reason := presentedKey(r)
	digest := sha256.Sum256([]byte(key))
	match, index := 0, 0
	for i := range g.keys {
		eq := subtle.ConstantTimeCompare(digest[:], g.keys[i][:])
		index = subtle.ConstantTimeSelect(eq, i, index)
		match |= eq
	}
	switch {
	case reason != "":
		return "", reason
	case key == "":
		return "", "missing api key"
	case match != 1:
		return "", "wrong api key"
	}
	return g.ids[index], ""
}
