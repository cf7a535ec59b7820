package config

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
)

// ErrInvalid matches every error that Load returns: bad configuration, for
// which cmd exits with status 2.
var ErrInvalid = errors.New("invalid configuration")

// ErrEnvFile matches a .env file that cannot be read or parsed.
var ErrEnvFile = errors.New("env file")

// ErrNoCertificate matches a TLS_CA_FILE with no PEM certificate in it.
var ErrNoCertificate = errors.New("no PEM certificate")

// maxShownValue bounds how much of a bad value an error repeats.
const maxShownValue = 80

// VarError is one bad or missing variable. Load joins them with errors.Join,
// one per line. Value is the offending value, empty when the variable is
// missing or secret: a secret's value is never kept here.
type VarError struct {
	Name   string // the variable, e.g. IMAP_PORT
	Value  string // the value given; "" for secrets and missing values
	Reason string // what is wrong, e.g. "must be a number from 1 to 65535"
}

// Error is "NAME: reason", plus ` (got "value")` when there is a value.
func (e *VarError) Error() string {
	if e.Value == "" {
		return e.Name + ": " + e.Reason
	}
	v := e.Value
	if len(v) > maxShownValue {
		v = v[:maxShownValue] + "..."
	}
	return fmt.Sprintf("%s: %s (got %s)", e.Name, e.Reason, strconv.Quote(v))
}

// Unwrap makes every VarError match ErrInvalid.
func (e *VarError) Unwrap() error { return ErrInvalid }

// envFileError is a .env file problem; it matches ErrEnvFile and ErrInvalid.
type envFileError struct {
	path string
	err  error // an *fs.PathError or "line N: " errSyntax; never the file's text
}

func (e *envFileError) Error() string {
	var pe *fs.PathError
	if errors.As(e.err, &pe) {
		return fmt.Sprintf("env file %s: %v", e.path, pe.Err)
	}
	return fmt.Sprintf("env file %s: %v", e.path, e.err)
}

func (e *envFileError) Unwrap() []error { return []error{ErrEnvFile, ErrInvalid, e.err} }

// errSyntax is a line the .env parser cannot read; the error names the
// line, never its text, which could hold a secret.
var errSyntax = errors.New("invalid syntax (write NAME=value lines; quote values with spaces, # or $ in single quotes); the text is not shown as it may hold a secret")

// reasonError is a decode failure: its text is the Reason of a VarError.
type reasonError string

func (e reasonError) Error() string { return string(e) }
