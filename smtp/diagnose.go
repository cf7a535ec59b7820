package smtp

import (
	"context"
	"crypto/tls"
	"fmt"
)

// Diagnosis is what Diagnose found, for `email-mcp check`.
type Diagnosis struct {
	Address  string   // host:port dialled
	Security Security // the configured mode
	// Mode is what the session used: "implicit TLS", "STARTTLS" or
	// "plaintext" ("" when it could not be set up).
	Mode        string
	TLSVersion  string // "TLS 1.3"; "" without TLS
	CipherSuite string
	// Extensions lists the known ESMTP extensions the server offered after
	// TLS, with their parameters ("SIZE 35882577", "AUTH PLAIN LOGIN").
	Extensions     []string
	AuthMechanisms []string
	MaxSize        int64 // SIZE limit in bytes; 0 when none is announced
	AuthAttempted  bool  // credentials are configured
	AuthOK         bool
	Mechanism      string   // the AUTH mechanism that succeeded (PLAIN, LOGIN, XOAUTH2, OAUTHBEARER)
	Err            error    // the first failure; nil when everything worked
	Steps          []string // what happened, in order, for people
}

// knownExtensions are the extensions Diagnose asks about (go-smtp answers
// per name; it does not list them).
var knownExtensions = []string{
	"STARTTLS", "AUTH", "SIZE", "8BITMIME", "SMTPUTF8", "PIPELINING", "CHUNKING",
	"BINARYMIME", "ENHANCEDSTATUSCODES", "DSN", "REQUIRETLS", "LIMITS", "DELIVERBY",
	"MT-PRIORITY", "RRVS", "ETRN", "VRFY", "HELP",
}

// Check dials, sets up TLS per the mode, says EHLO, authenticates when
// credentials are set, and quits. It is the SMTP half of /ready.
func (s *Sender) Check(ctx context.Context) error {
	return s.Diagnose(ctx).Err
}

// Diagnose does what Check does and reports each step, the TLS version,
// the extensions and the AUTH outcome.
func (s *Sender) Diagnose(ctx context.Context) Diagnosis {
	d := Diagnosis{Address: s.addr, Security: s.opts.Security}
	trace := tracer(func(step string) { d.Steps = append(d.Steps, step) })
	ss, err := s.open(ctx, trace)
	if err != nil {
		d.Err = fmt.Errorf("check: %w", err)
		trace.step("failed: %v", err)
		return d
	}
	defer ss.close()
	d.describe(ss)
	if s.opts.Username != "" {
		d.AuthAttempted = true
		if err := ss.authenticate(); err != nil {
			d.Err = fmt.Errorf("check: %w", err)
			trace.step("failed: %v", err)
			return d
		}
		d.AuthOK = true
		d.Mechanism = ss.mech
	} else {
		trace.step("no SMTP user configured: AUTH skipped")
	}
	if err := ss.c.Quit(); err != nil {
		d.Err = fmt.Errorf("check: %w", ss.fail("quit", err, ErrConnection))
		trace.step("failed: %v", err)
		return d
	}
	trace.step("QUIT: ok")
	return d
}

// describe fills the session facts.
func (d *Diagnosis) describe(ss *session) {
	d.Mode = ss.mode
	if ss.tls != nil {
		d.TLSVersion = tls.VersionName(ss.tls.Version)
		d.CipherSuite = tls.CipherSuiteName(ss.tls.CipherSuite)
	}
	for _, name := range knownExtensions {
		ok, param := ss.c.Extension(name)
		if !ok {
			continue
		}
		if param != "" {
			name += " " + sanitize(param)
		}
		d.Extensions = append(d.Extensions, name)
	}
	if ok, offered := ss.c.Extension("AUTH"); ok {
		d.AuthMechanisms = mechanisms(offered)
	}
	if n, ok := ss.c.MaxMessageSize(); ok {
		d.MaxSize = int64(n)
	}
}
