package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/email-mcp/email-mcp/internal/netaddr"
)

// errRemote refuses a target that is not on this machine.
var errRemote = errors.New("not a loopback address (pass -allow-remote to load another host)")

// checkURL accepts an http(s) URL on a loopback host, or any host with
// allowRemote.
func checkURL(raw string, allowRemote bool) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("-url %q: want http://host:port/mcp", raw)
	}
	if !allowRemote && !netaddr.IsLoopback(u.Hostname()) {
		return fmt.Errorf("-url %q: %w", raw, errRemote)
	}
	return nil
}

// checkAddr accepts host:port on a loopback host, or any host with
// allowRemote; flag names the flag in the error.
func checkAddr(flag, addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return fmt.Errorf("-%s %q: want host:port", flag, addr)
	}
	if !allowRemote && !netaddr.IsLoopback(host) {
		return fmt.Errorf("-%s %q: %w", flag, addr, errRemote)
	}
	return nil
}
