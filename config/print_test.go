package config_test

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/config"
)

func TestFprint(t *testing.T) {
	c := mustLoad(t, with(realAccount, "DEFAULT_FROM_NAME", "Test Agent", "MCP_PORT", "9000"))
	var buf bytes.Buffer
	c.Fprint(&buf)
	lines := map[string]string{} // NAME -> rest of the line
	var order []string
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			t.Fatalf("line %q is not NAME=value", sc.Text())
		}
		lines[name] = strings.Join(strings.Fields(rest), " ")
		order = append(order, name)
	}
	if !slices.Equal(order, config.Names()) {
		t.Errorf("Fprint names = %q, want Names() = %q", order, config.Names())
	}
	tests := map[string]string{
		"IMAP_HOST":         "imap.example.com # environment",
		"IMAP_PORT":         "993 # default",
		"IMAP_PASSWORD":     "[redacted] # environment",
		"SMTP_PASSWORD":     "[redacted] # derived",
		"SMTP_SSL":          "false # derived",
		"DEFAULT_FROM_NAME": `"Test Agent" # environment`,
		"MCP_PORT":          "9000 # environment",
		"MCP_TOOLSETS":      "mail,inbox # default",
		"MCP_API_KEY":       "# default",
		"LOG_LEVEL":         "info # default",
	}
	for name, want := range tests {
		if lines[name] != want {
			t.Errorf("Fprint %s=%q, want %q", name, lines[name], want)
		}
	}
}

func TestUsage(t *testing.T) {
	var buf bytes.Buffer
	if err := config.Usage(&buf); err != nil {
		t.Fatalf("Usage() = %v", err)
	}
	out := buf.String()
	for _, name := range config.Names() {
		if !strings.Contains(out, "\n"+name+" ") {
			t.Errorf("Usage() does not list %s", name)
		}
	}
	if !strings.Contains(out, "IMAP_PORT ") || !strings.Contains(out, "993") {
		t.Errorf("Usage() lacks IMAP_PORT's default:\n%s", out)
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string // prefixes of the expected warnings, in order; nil: none
	}{
		{"clean real account", realAccount, nil},
		{"clean sandbox", nil, nil},
		{"IMAP skip verify", with(realAccount, "IMAP_TLS_SKIP_VERIFY", "true"), []string{"IMAP_TLS_SKIP_VERIFY=true"}},
		{"SMTP skip verify", with(realAccount, "SMTP_TLS_SKIP_VERIFY", "1"), []string{"SMTP_TLS_SKIP_VERIFY=true"}},
		{"SMTP STARTTLS none", with(realAccount, "SMTP_STARTTLS", "none"), []string{"SMTP_STARTTLS=none"}},
		{"SMTP STARTTLS none under implicit TLS", with(realAccount, "SMTP_PORT", "465", "SMTP_STARTTLS", "none"), nil},
		{"IMAP STARTTLS none", with(realAccount, "IMAP_SSL", "false", "IMAP_PORT", "143", "IMAP_STARTTLS", "none"), []string{"IMAP_STARTTLS=none"}},
		{"IMAP plain text allowed", with(realAccount, "IMAP_SSL", "false", "IMAP_PORT", "143", "IMAP_STARTTLS", "false", "IMAP_ALLOW_PLAINTEXT", "true"),
			[]string{"IMAP_ALLOW_PLAINTEXT=true"}},
		{"SMTP plain text allowed", with(realAccount, "SMTP_STARTTLS", "false", "SMTP_ALLOW_PLAINTEXT", "true"), []string{"SMTP_ALLOW_PLAINTEXT=true"}},
		{"SMTP plain text to loopback", with(realAccount, "SMTP_HOST", "127.0.0.1", "SMTP_STARTTLS", "false"), nil},
		{"IMAP_SSL on 143", with(realAccount, "IMAP_PORT", "143"), []string{"IMAP_SSL=true with IMAP_PORT=143"}},
		{"no IMAP_SSL on 993", with(realAccount, "IMAP_SSL", "false", "IMAP_PORT", "993"), []string{"IMAP_SSL=false with IMAP_PORT=993"}},
		{"SMTP_SSL on 587", with(realAccount, "SMTP_SSL", "true"), []string{"SMTP_SSL=true with SMTP_PORT=587"}},
		{"no SMTP_SSL on 465", with(realAccount, "SMTP_PORT", "465", "SMTP_SSL", "false"), []string{"SMTP_SSL=false with SMTP_PORT=465"}},
		{"short API key", with(nil, "MCP_API_KEY", "short"), []string{"MCP_API_KEY is shorter"}},
		{"SMTP_HOST in the sandbox", with(nil, "SMTP_HOST", "smtp.example.com"), []string{"SMTP_HOST is set but IMAP_HOST is empty"}},
		{"sandbox on the network", with(nil, "DEV_SMTP_ADDR", ":2525", "DEV_IMAP_ADDR", "0.0.0.0:1143"),
			[]string{"DEV_SMTP_ADDR is not a loopback", "DEV_IMAP_ADDR is not a loopback"}},
		{"sandbox on localhost", with(nil, "DEV_SMTP_ADDR", "localhost:2525"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustLoad(t, tt.env).Warnings()
			if len(got) != len(tt.want) {
				t.Fatalf("Warnings() = %q, want %d starting %q", got, len(tt.want), tt.want)
			}
			for i, w := range got {
				if !strings.HasPrefix(w, tt.want[i]) {
					t.Errorf("Warnings()[%d] = %q, want it to start with %q", i, w, tt.want[i])
				}
			}
		})
	}
}

// writeCA writes a self-signed CA certificate as PEM and returns the path
// and the certificate.
func writeCA(t *testing.T) (string, *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "email-mcp test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))), cert
}

func TestCAFile(t *testing.T) {
	caPath, caCert := writeCA(t)
	tests := []struct {
		name, path, reason string
	}{
		{"valid", caPath, ""},
		{"missing", caPath + ".missing", "cannot be read: no such file or directory"},
		{"no certificate", writeFile(t, "junk.pem", "not a certificate\n"), "must contain at least one PEM certificate"},
		{"a key is no certificate", writeFile(t, "key.pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
			"must contain at least one PEM certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(t, with(realAccount, "TLS_CA_FILE", tt.path))
			if tt.reason != "" {
				errs := varErrors(t, err)
				if len(errs) != 1 || errs[0].Name != "TLS_CA_FILE" || errs[0].Reason != tt.reason {
					t.Fatalf("Load() = %v, want TLS_CA_FILE: %s", err, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load() = %v, want nil", err)
			}
			pool, err := c.CAPool()
			if err != nil || pool == nil {
				t.Fatalf("CAPool() = %v, %v, want a pool", pool, err)
			}
			if _, err := caCert.Verify(x509.VerifyOptions{Roots: pool}); err != nil {
				t.Errorf("the CA does not verify against CAPool(): %v", err)
			}
		})
	}
}

func TestCAPoolWithoutFile(t *testing.T) {
	c := mustLoad(t, nil)
	if pool, err := c.CAPool(); pool != nil || err != nil {
		t.Errorf("CAPool() = %v, %v, want nil, nil (system roots)", pool, err)
	}
	c.TLSCAFile = writeFile(t, "junk.pem", "junk")
	if _, err := c.CAPool(); !errors.Is(err, config.ErrNoCertificate) {
		t.Errorf("CAPool(junk) = %v, want ErrNoCertificate", err)
	}
}
