// Package netaddr answers questions about host names and addresses that
// several packages ask the same way. Its one question today: is this host
// on this machine?
package netaddr

import (
	"net/netip"
	"strings"
)

// IsLoopback reports whether host names this machine without a lookup:
// "localhost" (any case), an address in 127.0.0.0/8, ::1, or either in
// IPv4-mapped form; brackets and an IPv6 zone are allowed. Any other
// name is not, "localhost." included: a resolver may ask DNS for the
// absolute name, and whoever answers would get a password sent in clear
// text. host is never resolved.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return err == nil && a.Unmap().IsLoopback()
}
