package imap

import (
	"context"
	"crypto/tls"
	"fmt"
	"strings"
	"time"
)

// Diagnosis is what Diagnose found, for `email-mcp check`. It holds no
// password.
type Diagnosis struct {
	Address         string // host:port
	Security        string // Security.String()
	TLSVersion      string // "TLS 1.3"; empty without TLS or when it failed
	STARTTLSOffered bool   // the plaintext greeting offered STARTTLS (STARTTLS modes only)
	CapsBeforeLogin []string
	CapsAfterLogin  []string
	AuthMechanisms  []string // SASL mechanisms offered before login
	Mechanism       string   // the OAuth SASL mechanism used (XOAUTH2, OAUTHBEARER); "" with a password
	LoginOK         bool
	Err             error    // the first failure, translated like every error of this package
	Steps           []string // human-readable lines, in order
}

// OK reports whether the server was reached and the login succeeded.
func (d *Diagnosis) OK() bool { return d.Err == nil && d.LoginOK }

// stepf records a line; it does nothing on a nil Diagnosis (pool dials).
func (d *Diagnosis) stepf(format string, args ...any) {
	if d != nil {
		d.Steps = append(d.Steps, fmt.Sprintf(format, args...))
	}
}

// recordTLS notes the negotiated version and the server certificate.
func (d *Diagnosis) recordTLS(cs tls.ConnectionState) {
	d.TLSVersion = tls.VersionName(cs.Version)
	line := "TLS: " + d.TLSVersion + ", " + tls.CipherSuiteName(cs.CipherSuite)
	if len(cs.PeerCertificates) > 0 {
		leaf := cs.PeerCertificates[0]
		names := leaf.DNSNames
		for _, ip := range leaf.IPAddresses {
			names = append(names, ip.String())
		}
		line += fmt.Sprintf("; certificate for %s issued by %q, valid until %s",
			strings.Join(names, ", "), leaf.Issuer.CommonName, leaf.NotAfter.UTC().Format(time.DateOnly))
	}
	d.stepf("%s", line)
}

// Diagnose connects once on a fresh connection of its own (not the pool,
// no backoff), with the configured security, logs in and out, and reports
// every step. With a STARTTLS mode it first looks at the plaintext greeting
// to tell whether STARTTLS is offered.
func (c *Client) Diagnose(ctx context.Context) Diagnosis {
	d := &Diagnosis{Address: c.addr, Security: c.opts.Security.String()}
	if c.opts.Security == SecurityStartTLS {
		cn, err := c.probe(ctx, d)
		if err != nil {
			d.Err = err
			return *d
		}
		cn.logout()
		if !d.STARTTLSOffered {
			d.Err = wrapKind("STARTTLS with "+c.addr, ErrTLS, fmt.Errorf("server does not offer STARTTLS"))
			d.stepf("STARTTLS: not offered, but required (IMAP_STARTTLS=true)")
			return *d
		}
		d.stepf("STARTTLS: offered")
	}
	cn, err := c.connect(ctx, d)
	if err != nil {
		d.Err = err
		return *d
	}
	cn.logout()
	d.stepf("logout: done")
	return *d
}
