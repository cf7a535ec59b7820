package config

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// CAPool returns the system roots plus the certificates of TLS_CA_FILE, for
// tls.Config.RootCAs, or nil (use the system roots) when TLS_CA_FILE is empty.
// Load has checked the file; CAPool reads it again so that a Config built by
// hand works too.
func (c *Config) CAPool() (*x509.CertPool, error) {
	if c.TLSCAFile == "" {
		return nil, nil
	}
	pemData, err := readCAFile(c.TLSCAFile)
	if err != nil {
		return nil, fmt.Errorf("TLS_CA_FILE %s: %w", c.TLSCAFile, err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	pool.AppendCertsFromPEM(pemData)
	return pool, nil
}

// readCAFile reads a PEM file and checks that it holds a certificate.
func readCAFile(path string) ([]byte, error) {
	pemData, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pemData) {
		return nil, ErrNoCertificate
	}
	return pemData, nil
}

// caReason words a readCAFile error as a VarError reason.
func caReason(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, ErrNoCertificate):
		return "must contain at least one PEM certificate"
	case errors.As(err, &pe):
		return "cannot be read: " + pe.Err.Error()
	}
	return "cannot be read: " + err.Error()
}
