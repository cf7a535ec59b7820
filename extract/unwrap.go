package extract

import (
	"net/url"
	"strings"
)

// maxUnwrap bounds nested click-tracking wrappers (a Safe Links wrapper
// around a Google redirect around the target, for example).
const maxUnwrap = 3

// redirectParams are query keys that hold the target of a redirect.
var redirectParams = map[string]bool{
	"url": true, "u": true, "target": true, "redirect": true, "redirect_url": true, "redirecturl": true,
	"redir": true, "dest": true, "destination": true, "link": true, "goto": true,
}

// unwrap returns the target of a click-tracking wrapper, following nested
// wrappers, or the URL itself when no target is inside it. It only reads the
// URL: a wrapper is never fetched, so an opaque one stays as it is.
func unwrap(raw string) string {
	cur := raw
	for range maxUnwrap {
		next, ok := unwrapOnce(cur)
		if !ok {
			break
		}
		cur = next
	}
	return cur
}

// unwrapOnce returns the target inside one wrapper. Known redirectors
// (Google, Outlook Safe Links, paths like /click or /track) give up any
// parameter that decodes to an http(s) URL; other URLs only their redirect
// parameters, and only when they do not look like the action themselves,
// since "/verify?token=…&redirect=…" is the link to keep.
func unwrapOnce(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil {
		return "", false
	}
	if t, ok := pathTarget(u); ok {
		return t, true
	}
	if u.RawQuery == "" {
		return "", false
	}
	host := strings.ToLower(u.Hostname())
	known := knownRedirector(host, strings.ToLower(u.Path))
	if !known && (urlEvidence(u).action != "" || hasTokenParam(u)) {
		return "", false
	}
	for _, p := range rawParams(u.RawQuery) {
		if !known && !redirectParams[p.key] {
			continue
		}
		if t, ok := decodeTarget(p.value); ok {
			return t, true
		}
	}
	return "", false
}

// pathTarget returns the target that a wrapper holds percent-encoded in a
// path segment, as Amazon SES click tracking does:
// https://x.r.us-east-1.awstrack.me/L0/https:%2F%2Fexample.com%2Fverify%3Ftoken=…/1/…
func pathTarget(u *url.URL) (string, bool) {
	for seg := range strings.SplitSeq(u.EscapedPath(), "/") {
		if (hasPrefixFold(seg, "https:%2f") || hasPrefixFold(seg, "http:%2f")) && len(seg) > len("https:%2F%2F") {
			if t, ok := decodeTarget(seg); ok {
				return t, true
			}
		}
	}
	return "", false
}

// knownRedirector reports hosts and paths that exist to redirect clicks.
func knownRedirector(host, path string) bool {
	switch {
	case strings.HasSuffix(host, "safelinks.protection.outlook.com"),
		hostIs(host, "urldefense.com"), hostIs(host, "urldefense.proofpoint.com"),
		isGoogle(host) && path == "/url":
		return true
	}
	for seg := range strings.SplitSeq(path, "/") {
		switch seg {
		case "click", "track", "redirect", "redir", "r", "c", "ls", "wf", "l", "out", "go":
			return true
		}
	}
	return false
}

// isGoogle reports google.com and its country domains, with or without www.
func isGoogle(host string) bool {
	host = strings.TrimPrefix(host, "www.")
	return host == "google.com" || strings.HasPrefix(host, "google.") && strings.Count(host, ".") <= 2
}

// param is one query parameter with its value still percent-encoded.
type param struct{ key, value string }

// rawParams splits a raw query in order, keys decoded and lowercased.
func rawParams(q string) []param {
	var out []param
	for kv := range strings.SplitSeq(q, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if key, err := url.QueryUnescape(k); err == nil && key != "" {
			out = append(out, param{key: strings.ToLower(key), value: v})
		}
	}
	return out
}

// decodeTarget returns a parameter value percent-decoded once, or up to
// three times while it is still encoded, when that is an absolute http(s)
// URL. A '+' stays a '+'.
func decodeTarget(v string) (string, bool) {
	for range 3 {
		d, err := url.PathUnescape(v)
		if err != nil {
			return "", false
		}
		if isHTTP(d) && !strings.ContainsFunc(d, isBlank) {
			return d, true
		}
		if d == v {
			return "", false
		}
		v = d
	}
	return "", false
}

// hasTokenParam reports a query parameter that carries a one-time secret.
func hasTokenParam(u *url.URL) bool {
	for _, p := range rawParams(u.RawQuery) {
		if tokenParams[p.key] || strings.Contains(p.key, "token") {
			return true
		}
	}
	return false
}
