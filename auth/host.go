package auth

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ErrBadHost is returned by New for an AllowedHosts entry that is not a host
// name, "*.domain" or "*".
var ErrBadHost = errors.New("auth: an allowed host must be a host name, *.domain or *")

// hostRule is the prepared Host header rule (DNS-rebinding protection).
//
// A DNS-rebinding page reaches a server on loopback or on a private address
// through a name the attacker controls, so the browser sends that name in
// Host. Requests are therefore accepted only with a Host that is an IP
// literal (never the result of rebinding), localhost, or a name the operator
// listed (AllowedHosts, which cmd fills with MCP_ALLOWED_HOSTS and the host
// of MCP_BASE_URL). "*" turns the check off, for a reverse proxy that checks
// Host itself.
type hostRule struct {
	any      bool
	exact    map[string]bool
	suffixes []string // ".example.com" for "*.example.com"
}

// newHostRule prepares the allowed hosts.
func newHostRule(hosts []string) (hostRule, error) {
	r := hostRule{exact: map[string]bool{}}
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		switch name := strings.TrimSuffix(strings.TrimPrefix(h, "*."), "."); {
		case h == "*":
			r.any = true
		case strings.HasPrefix(h, "*.") && validHostName(name):
			r.suffixes = append(r.suffixes, "."+name)
		case !strings.HasPrefix(h, "*.") && validHostName(name):
			r.exact[name] = true
		default:
			return hostRule{}, ErrBadHost
		}
	}
	return r, nil
}

// allows reports whether the request's Host header is acceptable.
func (r hostRule) allows(req *http.Request) bool {
	if r.any {
		return true
	}
	host := req.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "" {
		return false // HTTP/1.1 requires Host; Go fills it for HTTP/1.0 only when sent
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	if host == "localhost" || r.exact[host] {
		return true
	}
	for _, s := range r.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

// validHostName accepts DNS names: letters, digits, '-', '_' and dots.
func validHostName(h string) bool {
	if h == "" || len(h) > 253 || strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
		return false
	}
	for _, c := range h {
		if !(c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}
