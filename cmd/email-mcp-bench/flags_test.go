package main

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// TestLoopbackHosts checks the guard's host rule (netaddr.IsLoopback):
// "localhost." and zones of other addresses are not this machine.
func TestLoopbackHosts(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:1", true}, {"127.8.9.10:1", true}, {"[::1]:1", true}, {"[::1%lo]:1", true}, {"localhost:1", true}, {"LOCALHOST:1", true},
		{"LOCALHOST.:1", false}, {"127.0.0.1.:1", false}, {"[fe80::1%lo]:1", false}, {"10.0.0.1:1", false}, {"example.com:1", false},
		{"localhost.example.com:1", false}, {":1", false}, {"0.0.0.0:1", false},
	} {
		err := checkAddr("imap-addr", tc.addr, false)
		if (err == nil) != tc.want || (err != nil && !errors.Is(err, errRemote)) {
			t.Errorf("checkAddr(%q, false) = %v, want loopback=%v", tc.addr, err, tc.want)
		}
	}
}

func TestLoopbackGuard(t *testing.T) {
	for _, tc := range []struct {
		url         string
		allowRemote bool
		wantErr     error // nil: accepted; errRemote; or any error (errBadURL)
	}{
		{"http://127.0.0.1:8420/mcp", false, nil},
		{"http://localhost:8420/mcp", false, nil},
		{"http://[::1]:8420/mcp", false, nil},
		{"http://mail.example.com/mcp", false, errRemote},
		{"https://192.0.2.1/mcp", false, errRemote},
		{"https://mail.example.com/mcp", true, nil},
		{"ftp://127.0.0.1/mcp", false, errBadURL},
		{"127.0.0.1:8420", false, errBadURL},
	} {
		err := checkURL(tc.url, tc.allowRemote)
		if !matches(err, tc.wantErr) {
			t.Errorf("checkURL(%q, %v) = %v, want %v", tc.url, tc.allowRemote, err, tc.wantErr)
		}
	}
	for _, tc := range []struct {
		addr        string
		allowRemote bool
		wantErr     error
	}{
		{"127.0.0.1:993", false, nil},
		{"localhost:24", false, nil},
		{"imap.example.com:993", false, errRemote},
		{"imap.example.com:993", true, nil},
		{"127.0.0.1", false, errBadURL},
	} {
		err := checkAddr("imap-addr", tc.addr, tc.allowRemote)
		if !matches(err, tc.wantErr) {
			t.Errorf("checkAddr(%q, %v) = %v, want %v", tc.addr, tc.allowRemote, err, tc.wantErr)
		}
	}
}

// errBadURL stands for "some error other than errRemote" in the tables.
var errBadURL = errors.New("any error but errRemote")

func matches(err, want error) bool {
	switch want {
	case nil:
		return err == nil
	case errBadURL:
		return err != nil && !errors.Is(err, errRemote)
	}
	return errors.Is(err, want)
}

func TestParseLoad(t *testing.T) {
	t.Setenv("MCP_API_KEY", "env-key")
	for _, tc := range []struct {
		args    string
		wantErr string // "" for success
		check   func(*loadOptions) bool
	}{
		{"-tool search_emails", "", func(o *loadOptions) bool {
			return o.Key == "env-key" && o.Plan.Count == 100 && o.Plan.Concurrency == 1 && string(o.Args) == "{}"
		}},
		{`-tool read_email -args {"uid":3} -key k -c 8 -d 2s -warmup 0`, "", func(o *loadOptions) bool {
			return o.Key == "k" && o.Plan.Count == 0 && o.Plan.Duration == 2*time.Second && o.Plan.Concurrency == 8 && string(o.Args) == `{"uid":3}`
		}},
		{"-tool x -accept tool_INVALID_ARGUMENT,http_429", "", func(o *loadOptions) bool {
			return o.Accept["tool_INVALID_ARGUMENT"] && o.Accept["http_429"] && !o.Accept[""]
		}},
		{"-args {}", "-tool is required", nil},
		{"-tool x -args [1]", "JSON object", nil},
		{"-tool x -args null", "JSON object", nil},
		{"-tool x -n 5 -d 1s", "exclude each other", nil},
		{"-tool x -c 0", "-c 0", nil},
		{"-tool x -c 100000", "-c 100000", nil},
		{"-tool x -n 2000000", "-n 2000000", nil},
		{"-tool x -d 1h", "-d 1h0m0s", nil},
		{"-tool x -url http://example.com/mcp", "not a loopback", nil},
		{"-tool x -url http://example.com/mcp -allow-remote", "", func(o *loadOptions) bool { return o.AllowRemote }},
		{"-tool x stray", "unexpected argument", nil},
	} {
		o, err := parseLoad(strings.Fields(tc.args), io.Discard, new(string))
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("parseLoad(%s) = %v, want an error with %q", tc.args, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("parseLoad(%s) = %v, want no error", tc.args, err)
		case tc.wantErr == "" && !tc.check(o):
			t.Errorf("parseLoad(%s) = %+v: not what was asked", tc.args, o)
		}
	}
}

func TestParseLoadNeedsKey(t *testing.T) {
	t.Setenv("MCP_API_KEY", "")
	if _, err := parseLoad([]string{"-tool", "x"}, io.Discard, new(string)); err == nil || !strings.Contains(err.Error(), "API key") {
		t.Errorf("parseLoad without a key = %v, want an error about the API key", err)
	}
}

func TestParseRawAndCompare(t *testing.T) {
	t.Setenv("IMAP_PASSWORD", "env-pass")
	t.Setenv("MCP_API_KEY", "env-key")
	base := "-imap-addr 127.0.0.1:993 -imap-user u "
	for _, tc := range []struct {
		args    string
		wantErr string
		check   func(*rawOptions) bool
	}{
		{base + "-c 32", "", func(o *rawOptions) bool {
			return o.Pass == "env-pass" && o.Conns == 32 && o.Op == "search" && o.Limit == 50
		}},
		{base + "-c 32 -conns 3", "", func(o *rawOptions) bool { return o.Conns == 3 }},
		{base + "-c 500", "", func(o *rawOptions) bool { return o.Conns == maxConns }},
		{base + "-op read -uid 7", "", func(o *rawOptions) bool { return o.Op == "read" && o.UID == 7 }},
		{base + "-op read", "-uid is required", nil},
		{base + "-op fetch", "want search or read", nil},
		{base + "-limit 0", "-limit 0", nil},
		{base + "-conns 65", "-conns 65", nil},
		{"-imap-user u", "required", nil},
		{"-imap-addr imap.example.com:993 -imap-user u", "not a loopback", nil},
	} {
		o, err := parseRaw(strings.Fields(tc.args), io.Discard, new(string))
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("parseRaw(%s) = %v, want an error with %q", tc.args, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("parseRaw(%s) = %v, want no error", tc.args, err)
		case tc.wantErr == "" && !tc.check(o):
			t.Errorf("parseRaw(%s) = %+v: not what was asked", tc.args, o)
		}
	}
	o, err := parseCompare(strings.Fields(base+"-op read -uid 9 -c 4 -conns 2 -n 40"), io.Discard, new(string))
	if err != nil || o.mcp.Tool != "read_email" || string(o.mcp.Args) != `{"folder":"INBOX","uid":9}` ||
		o.raw.Plan.Count != 40 || o.raw.Conns != 2 || o.slices != 4 {
		t.Errorf("parseCompare(read) = %+v, %+v, %v", o.mcp, o.raw, err)
	}
	if _, err := parseCompare(strings.Fields(base+"-n 2 -slices 4"), io.Discard, new(string)); err == nil {
		t.Error("parseCompare(-n 2 -slices 4) = nil, want an error: fewer calls than slices")
	}
}

func TestParseWait(t *testing.T) {
	t.Setenv("MCP_API_KEY", "k")
	t.Setenv("IMAP_PASSWORD", "p")
	for _, tc := range []struct {
		args    string
		wantErr string
		check   func(*waitOptions) bool
	}{
		{"-smtp-addr 127.0.0.1:2525", "", func(o *waitOptions) bool {
			return o.Waiters == 1 && o.Settle == 303*time.Millisecond && o.mcp.Timeout > o.WaitTimeout
		}},
		{"-lmtp-addr 127.0.0.1:24 -k 1000 -rounds 1", "", func(o *waitOptions) bool { return o.Settle == 3300*time.Millisecond }},
		{"-raw -lmtp-addr 127.0.0.1:24 -imap-addr 127.0.0.1:993 -imap-user u -rcpt u@example.test", "", func(o *waitOptions) bool {
			return o.Raw && o.raw.Pass == "p"
		}},
		{"-raw -lmtp-addr 127.0.0.1:24 -imap-addr 127.0.0.1:993 -imap-user u", "-rcpt", nil},
		{"-k 1", "one of -smtp-addr and -lmtp-addr", nil},
		{"-smtp-addr 127.0.0.1:25 -lmtp-addr 127.0.0.1:24", "one of", nil},
		{"-smtp-addr 127.0.0.1:25 -k 6000", "-k 6000", nil},
		{"-smtp-addr mx.example.com:25", "not a loopback", nil},
	} {
		o, err := parseWait(strings.Fields(tc.args), io.Discard)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("parseWait(%s) = %v, want an error with %q", tc.args, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("parseWait(%s) = %v, want no error", tc.args, err)
		case tc.wantErr == "" && !tc.check(o):
			t.Errorf("parseWait(%s) = %+v: not what was asked", tc.args, o)
		}
	}
}

func TestRunExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 2},
		{[]string{"nope"}, 2},
		{[]string{"load", "-c", "0", "-tool", "x", "-key", "k"}, 2},
		{[]string{"proc", "-pid", "0"}, 2},
		{[]string{"proc", "-pid", "999999999"}, 1}, // no such process: a run failure
	} {
		if got := run(t.Context(), tc.args, io.Discard, io.Discard); got != tc.want {
			t.Errorf("run(%q) = %d, want %d", tc.args, got, tc.want)
		}
	}
}
