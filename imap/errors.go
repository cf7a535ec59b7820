package imap

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"

	goimap "github.com/emersion/go-imap/v2"
)

// The kinds of failure callers match on with errors.Is. Every error of this
// package wraps one of them, or a timeout (context.DeadlineExceeded) or a
// cancellation (context.Canceled), and keeps the cause wrapped too. Messages
// never contain the password; they may name the host and quote the server.
var (
	// ErrFolderNotFound: the folder does not exist (NO [NONEXISTENT],
	// [TRYCREATE] or a "doesn't exist" text).
	ErrFolderNotFound = errors.New("imap: folder not found")
	// ErrMessageNotFound: no message has the asked UID.
	ErrMessageNotFound = errors.New("imap: message not found")
	// ErrAuthFailed: the server refused the credentials. It is not retried.
	ErrAuthFailed = errors.New("imap: authentication failed")
	// ErrTLS: the TLS handshake failed (untrusted or mismatched
	// certificate, not TLS at all) or a required STARTTLS is not offered.
	ErrTLS = errors.New("imap: TLS failed")
	// ErrConnection: the server could not be reached (refused, unreachable,
	// DNS) or the connection broke.
	ErrConnection = errors.New("imap: connection failed")
	// ErrClosed: the Client was closed.
	ErrClosed = errors.New("imap: client closed")
	// ErrProtocol: the server answered in a way we cannot use (BAD, or a NO
	// we do not know how to read).
	ErrProtocol = errors.New("imap: unexpected server response")
	// ErrInvalid: the caller's arguments cannot make a valid request (no
	// flag to change, UID 0, a limit out of range, the same folder twice).
	// Nothing was sent.
	ErrInvalid = errors.New("imap: invalid argument")
	// ErrUIDValidityChanged: the folder's UIDVALIDITY is not the one the
	// caller's UIDs or cursor belong to; they no longer name the same
	// messages.
	ErrUIDValidityChanged = errors.New("imap: folder UIDVALIDITY changed")
	// ErrUnsupported: the server lacks an extension the operation needs
	// (Move without MOVE and without UIDPLUS).
	ErrUnsupported = errors.New("imap: not supported by the server")
	// ErrSearchCharset: the server refused SEARCH CHARSET UTF-8 (NO
	// [BADCHARSET]), so a non-ASCII search term cannot be sent.
	ErrSearchCharset = errors.New("imap: search charset not supported by the server")
	// ErrPartNotFound: the message has no body part at the asked path.
	ErrPartNotFound = errors.New("imap: message part not found")
	// ErrOverflow: a subscription's reader fell WatchQueue messages behind;
	// the subscription was closed so that the watcher never waits for it.
	ErrOverflow = errors.New("imap: subscriber fell too far behind")
)

// kinds is every sentinel, for hasKind.
var kinds = []error{ErrFolderNotFound, ErrMessageNotFound, ErrAuthFailed, ErrTLS,
	ErrConnection, ErrClosed, ErrProtocol, ErrInvalid, ErrUIDValidityChanged,
	ErrUnsupported, ErrSearchCharset, ErrPartNotFound, ErrOverflow,
	context.DeadlineExceeded, context.Canceled}

// verdicts are the kinds this package decides on after a complete, healthy
// exchange: the connection stays usable.
var verdicts = []error{ErrMessageNotFound, ErrInvalid, ErrUIDValidityChanged,
	ErrUnsupported, ErrPartNotFound}

// MissingUIDsError names the UIDs that are not in the folder. It matches
// ErrMessageNotFound with errors.Is.
type MissingUIDsError struct {
	Folder string
	UIDs   []uint32 // ascending
}

// Error implements error.
func (e *MissingUIDsError) Error() string {
	l := make([]string, len(e.UIDs))
	for i, u := range e.UIDs {
		l[i] = strconv.FormatUint(uint64(u), 10)
	}
	return fmt.Sprintf("%v: no UID %s in %q", ErrMessageNotFound, strings.Join(l, ", "), e.Folder)
}

// Is makes errors.Is(err, ErrMessageNotFound) true.
func (e *MissingUIDsError) Is(target error) bool { return target == ErrMessageNotFound }

// localError is a failure of the caller's reader or writer during a
// transfer, not of the server: it keeps its own meaning (no kind is added).
type localError struct{ err error }

func (e *localError) Error() string { return e.err.Error() }
func (e *localError) Unwrap() error { return e.err }

// hasKind reports whether err was already translated.
func hasKind(err error) bool {
	for _, k := range kinds {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}

// wrapKind wraps cause under op with the given kind.
func wrapKind(op string, kind, cause error) error {
	if cause == nil {
		return fmt.Errorf("%s: %w", op, kind)
	}
	return fmt.Errorf("%s: %w: %w", op, kind, cause)
}

// translate maps an error of an operation on a logged-in connection to a
// kind, once: errors that already carry one are only prefixed with op.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	var le *localError
	if hasKind(err) || errors.As(err, &le) {
		return fmt.Errorf("%s: %w", op, err)
	}
	return wrapKind(op, responseKind(err), err)
}

// responseKind classifies a server answer or an I/O failure.
func responseKind(err error) error {
	var ie *goimap.Error
	if !errors.As(err, &ie) {
		// imapclient formats I/O failures with %v: whatever is not a status
		// response means the connection is no longer usable.
		return ErrConnection
	}
	switch {
	case ie.Type == goimap.StatusResponseTypeBye:
		return ErrConnection
	case ie.Code == goimap.ResponseCodeNonExistent, ie.Code == goimap.ResponseCodeTryCreate,
		ie.Type == goimap.StatusResponseTypeNo && mentionsMissingFolder(ie.Text):
		return ErrFolderNotFound
	case ie.Code == goimap.ResponseCodeAuthenticationFailed:
		return ErrAuthFailed
	case ie.Code == goimap.ResponseCodeUnavailable, ie.Code == goimap.ResponseCodeLimit, ie.Code == goimap.ResponseCodeInUse:
		return ErrConnection
	case ie.Code == goimap.ResponseCodeBadCharset:
		return ErrSearchCharset
	default:
		return ErrProtocol
	}
}

// mentionsMissingFolder recognises servers that say a folder is missing
// without a response code.
func mentionsMissingFolder(text string) bool {
	t := strings.ToLower(text)
	for _, s := range []string{"doesn't exist", "does not exist", "no such mailbox",
		"no such folder", "unknown mailbox", "mailbox not found", "folder not found"} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// loginKind classifies a failed LOGIN: any refusal is ErrAuthFailed except a
// temporary one or one that asks for TLS first. Temporary: UNAVAILABLE, and
// LIMIT or INUSE (RFC 5530), as Dovecot answers when the user already has
// mail_max_userip_connections open: the credentials are fine, and an
// AUTH_FAILED would tell every wait of a replica to give up at once.
func loginKind(err error) error {
	var ie *goimap.Error
	if !errors.As(err, &ie) {
		return ErrConnection
	}
	switch ie.Code {
	case goimap.ResponseCodeUnavailable, goimap.ResponseCodeLimit, goimap.ResponseCodeInUse:
		return ErrConnection
	case goimap.ResponseCodePrivacyRequired:
		return ErrTLS
	default:
		return ErrAuthFailed
	}
}

// handshakeKind classifies a failed TLS handshake or STARTTLS exchange: a
// refused STARTTLS or a certificate problem is ErrTLS, a connection that
// broke underneath is ErrConnection.
func handshakeKind(err error) error {
	var ie *goimap.Error
	if errors.As(err, &ie) || isTLSError(err) {
		return ErrTLS
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return ErrConnection
	}
	msg := err.Error()
	if strings.Contains(msg, "EOF") || strings.Contains(msg, "connection reset") {
		return ErrConnection // imapclient flattens its errors with %v
	}
	return ErrTLS
}

// isTLSError reports certificate and TLS record errors.
func isTLSError(err error) bool {
	var (
		verr *tls.CertificateVerificationError
		rerr tls.RecordHeaderError
		aerr tls.AlertError
		uerr x509.UnknownAuthorityError
		herr x509.HostnameError
		cerr x509.CertificateInvalidError
	)
	return errors.As(err, &verr) || errors.As(err, &rerr) || errors.As(err, &aerr) ||
		errors.As(err, &uerr) || errors.As(err, &herr) || errors.As(err, &cerr) ||
		strings.Contains(err.Error(), "tls: ")
}

// keepConn reports whether a connection is still fit for the pool after an
// operation returned err. Only a tagged NO leaves it healthy (a missing
// folder, a refused flag change): the server answered and the session state
// is intact. The verdicts (ErrMessageNotFound, ErrInvalid...) are our own
// conclusions from complete answers, or come before any command, and keep
// it too. A BAD, a BYE, a timeout, an I/O error or anything unknown
// discards it.
func keepConn(err error) bool {
	if err == nil {
		return true
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	for _, v := range verdicts {
		if errors.Is(err, v) {
			return true
		}
	}
	var ie *goimap.Error
	return errors.As(err, &ie) && ie.Type == goimap.StatusResponseTypeNo
}
