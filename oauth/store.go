package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Stored is what `email-mcp login` keeps: enough to refresh without any
// other OAuth variable. The file is 0600 in a 0700 folder.
type Stored struct {
	Issuer       string    `json:"issuer,omitempty"` // provider preset or device endpoint, for people
	TokenURL     string    `json:"token_url"`
	ClientID     string    `json:"client_id"`
	Scopes       []string  `json:"scopes,omitempty"`
	RefreshToken string    `json:"refresh_token"`
	SavedAt      time.Time `json:"saved_at"`
}

// Save writes s to path with mode 0600 (through a temporary file in the
// same folder, renamed over the old one), creating the folder 0700.
func Save(path string, s Stored) error {
	if s.SavedAt.IsZero() {
		s.SavedAt = time.Now().UTC()
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	f, err := os.CreateTemp(dir, ".oauth-token-*")
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	defer os.Remove(f.Name()) // after the rename, nothing is there
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("token store: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("token store: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("token store: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}

// Load reads a stored token. A missing file is a ConfigError that says to
// run `email-mcp login`; so is one that others may read (it holds a
// refresh token).
func Load(path string) (Stored, error) {
	var s Stored
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, &ConfigError{Var: "OAUTH_TOKEN_STORE", Reason: "no token stored at " + path,
			Hint: "run `email-mcp login` first, or set OAUTH_REFRESH_TOKEN"}
	}
	if err != nil {
		return s, &ConfigError{Var: "OAUTH_TOKEN_STORE", Reason: "cannot read " + path + ": " + pathReason(err)}
	}
	if info.Mode().Perm()&0o077 != 0 {
		return s, &ConfigError{Var: "OAUTH_TOKEN_STORE", Reason: path + " may be read by others (mode " + info.Mode().Perm().String() + ")",
			Hint: "chmod 600 it, or run `email-mcp login` again"}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return s, &ConfigError{Var: "OAUTH_TOKEN_STORE", Reason: "cannot read " + path + ": " + pathReason(err)}
	}
	if json.Unmarshal(data, &s) != nil || s.RefreshToken == "" || s.TokenURL == "" {
		return s, &ConfigError{Var: "OAUTH_TOKEN_STORE", Reason: path + " is not a token that email-mcp login stored",
			Hint: "run `email-mcp login` again"}
	}
	return s, nil
}

func pathReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
