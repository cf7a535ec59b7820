package auth

import (
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// checkOrigin applies the Origin rule and returns the header's value (for
// the log and for CORS) and whether it is allowed.
func (g *guard) checkOrigin(r *http.Request) (string, bool) {
	vals := r.Header.Values("Origin")
	switch {
	case len(vals) == 0:
		return "", true
	case len(vals) > 1:
		return strings.Join(vals, ", "), false
	}
	origin := strings.TrimSpace(vals[0])
	if origin == "" {
		return "", true // carries no origin; browsers never send it empty
	}
	norm, ok := parseOrigin(origin)
	if !ok {
		return origin, false // "null" and anything malformed
	}
	return origin, g.origins[norm] || loopbackOrigin(norm)
}

// parseOrigin checks scheme://host[:port] (a trailing "/" is tolerated) and
// returns it in lower case without a default port.
func parseOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.Opaque != "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", false
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if host == "" {
		return "", false
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", false
		}
	}
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, true
}

// loopbackOrigin reports whether a normalised origin is http(s) on
// localhost, 127.0.0.0/8 or ::1.
func loopbackOrigin(norm string) bool {
	u, err := url.Parse(norm)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// CORS headers for browser clients of allowed origins.
const (
	corsMethods = "GET, POST, DELETE, OPTIONS"
	corsHeaders = "Authorization, X-API-Key, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID"
	corsExpose  = "Mcp-Session-Id, WWW-Authenticate"
	corsMaxAge  = "600"
)

// allowCORS lets the browser of an allowed origin read the response.
func allowCORS(w http.ResponseWriter, origin string) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Expose-Headers", corsExpose)
	h.Add("Vary", "Origin")
}

// isPreflight reports whether r is a CORS preflight request.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
}

// preflight answers a CORS preflight of an allowed origin.
func preflight(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", corsMethods)
	h.Set("Access-Control-Allow-Headers", corsHeaders)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	w.WriteHeader(http.StatusNoContent)
}
