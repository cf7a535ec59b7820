package imap_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/imap"
)

func TestDiagnoseGoodCredentials(t *testing.T) {
	tests := []struct {
		name     string
		server   serverMode
		security imap.Security
		tls      bool
	}{
		{"plain", modePlain, imap.SecurityPlain, false},
		{"implicit TLS", modeTLS, imap.SecurityTLS, true},
		{"STARTTLS", modeStartTLS, imap.SecurityStartTLS, true},
		{"STARTTLS optional", modeStartTLS, imap.SecurityStartTLSOptional, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, tt.server, nil)
			opts := clientOptions(t, ts.Port, tt.server)
			opts.Security = tt.security
			c := newClient(t, opts)
			d := c.Diagnose(context.Background())
			if !d.OK() || !d.LoginOK || d.Err != nil {
				t.Fatalf("Diagnose() = OK %v, LoginOK %v, Err %v; want success\n%s", d.OK(), d.LoginOK, d.Err, strings.Join(d.Steps, "\n"))
			}
			if d.Security != tt.security.String() || !strings.HasPrefix(d.Address, "127.0.0.1:") {
				t.Errorf("Security, Address = %q, %q", d.Security, d.Address)
			}
			if (d.TLSVersion != "") != tt.tls {
				t.Errorf("TLSVersion = %q, want TLS %v", d.TLSVersion, tt.tls)
			}
			if wantOffer := tt.server == modeStartTLS; d.STARTTLSOffered != wantOffer {
				t.Errorf("STARTTLSOffered = %v, want %v", d.STARTTLSOffered, wantOffer)
			}
			if !slices.Contains(d.CapsBeforeLogin, "IMAP4rev1") || !slices.Contains(d.AuthMechanisms, "PLAIN") {
				t.Errorf("CapsBeforeLogin = %v, AuthMechanisms = %v; want IMAP4rev1 and PLAIN", d.CapsBeforeLogin, d.AuthMechanisms)
			}
			if !slices.Contains(d.CapsAfterLogin, "LIST-STATUS") {
				t.Errorf("CapsAfterLogin = %v, want LIST-STATUS", d.CapsAfterLogin)
			}
			checkSteps(t, d)
			if st := c.Stats(); st.Dials != 0 || st.Open != 0 {
				t.Errorf("Stats() = %+v: Diagnose must not use the pool", st)
			}
		})
	}
}

func TestDiagnoseFailures(t *testing.T) {
	tests := []struct {
		name     string
		server   serverMode
		security imap.Security
		password string
		want     error
	}{
		{"wrong password", modePlain, imap.SecurityPlain, "nope", imap.ErrAuthFailed},
		{"wrong password over TLS", modeTLS, imap.SecurityTLS, "nope", imap.ErrAuthFailed},
		{"STARTTLS not offered", modePlain, imap.SecurityStartTLS, testPassword, imap.ErrTLS},
		{"TLS to a plaintext port", modePlain, imap.SecurityTLS, testPassword, imap.ErrTLS},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, tt.server, nil)
			opts := clientOptions(t, ts.Port, tt.server)
			opts.Security, opts.Password = tt.security, tt.password
			d := newClient(t, opts).Diagnose(context.Background())
			if d.OK() || d.LoginOK || !errors.Is(d.Err, tt.want) {
				t.Fatalf("Diagnose() = OK %v, LoginOK %v, Err %v; want Err %v", d.OK(), d.LoginOK, d.Err, tt.want)
			}
			if tt.want == imap.ErrAuthFailed && len(d.CapsBeforeLogin) == 0 {
				t.Errorf("CapsBeforeLogin empty after reaching the login step")
			}
			if tt.want == imap.ErrTLS && ts.loginCount() != 0 {
				t.Errorf("LOGIN sent although TLS failed")
			}
			checkSteps(t, d)
		})
	}
}

// checkSteps: steps are written, and none shows the password.
func checkSteps(t *testing.T, d imap.Diagnosis) {
	t.Helper()
	if len(d.Steps) < 2 {
		t.Errorf("Steps = %q, want a line per step", d.Steps)
	}
	for _, s := range d.Steps {
		if strings.Contains(s, testPassword) {
			t.Errorf("step %q shows the password", s)
		}
	}
	noPassword(t, d.Err)
}
