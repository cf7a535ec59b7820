package devmail

import "errors"

// Sentinel errors; match them with errors.Is.
var (
	// ErrInvalidOptions means Start was given options it cannot run with
	// (no password, an address that does not parse, a negative size).
	ErrInvalidOptions = errors.New("invalid devmail options")
	// ErrClosed means the server was closed: Deliver after Close, or a
	// delivery that raced with Close.
	ErrClosed = errors.New("devmail server closed")
	// ErrTooLarge means a message passed to Deliver is larger than
	// Options.MaxMessageBytes (SMTP answers 552 for the same case).
	ErrTooLarge = errors.New("message too large")
	// ErrStore means the on-disk store (Options.DataDir) could not be read
	// or written; the cause is wrapped as well.
	ErrStore = errors.New("devmail store failure")
)
