package imap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"

	goimap "github.com/emersion/go-imap/v2"
)

func no(code goimap.ResponseCode, text string) error {
	return &goimap.Error{Type: goimap.StatusResponseTypeNo, Code: code, Text: text}
}

func TestTranslate(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want error
		keep bool // connection goes back to the pool
	}{
		{"NONEXISTENT", no(goimap.ResponseCodeNonExistent, "No such mailbox"), ErrFolderNotFound, true},
		{"TRYCREATE", no(goimap.ResponseCodeTryCreate, "Mailbox doesn't exist"), ErrFolderNotFound, true},
		{"Exchange text", no("", "Mailbox doesn't exist: Foo"), ErrFolderNotFound, true},
		{"Gmail text", no("", "Unknown Mailbox: Foo (Failure)"), ErrFolderNotFound, true},
		{"AUTHENTICATIONFAILED", no(goimap.ResponseCodeAuthenticationFailed, "bad"), ErrAuthFailed, true},
		{"UNAVAILABLE", no(goimap.ResponseCodeUnavailable, "try later"), ErrConnection, true},
		{"LIMIT", no(goimap.ResponseCodeLimit, "too many"), ErrConnection, true},
		{"other NO", no(goimap.ResponseCodeOverQuota, "full"), ErrProtocol, true},
		{"BAD", &goimap.Error{Type: goimap.StatusResponseTypeBad, Text: "syntax"}, ErrProtocol, false},
		{"BYE", &goimap.Error{Type: goimap.StatusResponseTypeBye, Text: "shutting down"}, ErrConnection, false},
		{"I/O", fmt.Errorf("in response: %v", io.ErrUnexpectedEOF), ErrConnection, false},
		{"deadline", cutOff(context.DeadlineExceeded, errors.New("i/o timeout")), context.DeadlineExceeded, false},
		{"cancel", cutOff(context.Canceled, errors.New("i/o timeout")), context.Canceled, false},
		{"message not found", ErrMessageNotFound, ErrMessageNotFound, true},
		{"BADCHARSET", no(goimap.ResponseCodeBadCharset, "UTF-8 not supported"), ErrSearchCharset, true},
		{"missing UIDs", &MissingUIDsError{Folder: "INBOX", UIDs: []uint32{3, 9}}, ErrMessageNotFound, true},
		{"UIDVALIDITY verdict", fmt.Errorf("cursor: %w", ErrUIDValidityChanged), ErrUIDValidityChanged, true},
		{"unsupported", fmt.Errorf("move: %w", ErrUnsupported), ErrUnsupported, true},
		{"invalid", fmt.Errorf("limit: %w", ErrInvalid), ErrInvalid, true},
		{"part not found", fmt.Errorf("part: %w", ErrPartNotFound), ErrPartNotFound, true},
		{"wrapped NONEXISTENT", fmt.Errorf("select: %w", no(goimap.ResponseCodeNonExistent, "x")), ErrFolderNotFound, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := translate("op", tt.err)
			if !errors.Is(got, tt.want) {
				t.Errorf("translate(%v) = %v, want %v", tt.err, got, tt.want)
			}
			if !errors.Is(got, tt.err) {
				t.Errorf("translate(%v) = %v lost the cause", tt.err, got)
			}
			if k := keepConn(tt.err); k != tt.keep {
				t.Errorf("keepConn(%v) = %v, want %v", tt.err, k, tt.keep)
			}
		})
	}
}

func TestTranslateLocalError(t *testing.T) {
	cause := errors.New("disk full")
	err := translate("stream", &localError{cause})
	if !errors.Is(err, cause) || hasKind(err) {
		t.Errorf("translate(local error) = %v, want the cause without a kind", err)
	}
	if keepConn(&localError{cause}) {
		t.Error("keepConn(local error) = true, want false")
	}
	e := &MissingUIDsError{Folder: "INBOX", UIDs: []uint32{3, 9}}
	if msg := e.Error(); msg != `imap: message not found: no UID 3, 9 in "INBOX"` {
		t.Errorf("MissingUIDsError.Error() = %q", msg)
	}
}

func TestCutOffKeepsBothDeadlines(t *testing.T) {
	err := cutOff(context.DeadlineExceeded, errors.New("read: i/o timeout"))
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("cutOff() = %v, want context.DeadlineExceeded and os.ErrDeadlineExceeded", err)
	}
	if err := cutOff(context.Canceled, errors.New("x")); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("cutOff(Canceled) = %v claims a deadline", err)
	}
}

func TestLoginKind(t *testing.T) {
	tests := []struct {
		err  error
		want error
	}{
		{no(goimap.ResponseCodeAuthenticationFailed, "Authentication failed"), ErrAuthFailed},
		{no("", "LOGIN failed"), ErrAuthFailed},
		{&goimap.Error{Type: goimap.StatusResponseTypeBad, Text: "LOGIN disabled"}, ErrAuthFailed},
		{no(goimap.ResponseCodeUnavailable, "auth backend down"), ErrConnection},
		{no(goimap.ResponseCodeLimit, "Maximum number of connections from user+IP exceeded (mail_max_userip_connections=10)"), ErrConnection},
		{no(goimap.ResponseCodeInUse, "Mailbox in use"), ErrConnection},
		{no(goimap.ResponseCodePrivacyRequired, "TLS first"), ErrTLS},
		{io.EOF, ErrConnection},
	}
	for _, tt := range tests {
		if got := loginKind(tt.err); got != tt.want {
			t.Errorf("loginKind(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		n        int
		min, max int64 // milliseconds
	}{
		{1, 50, 100}, {2, 100, 200}, {3, 200, 400}, {6, 1600, 3200}, {7, 2500, 5000}, {40, 2500, 5000},
	}
	for _, tt := range tests {
		for range 20 {
			if d := backoff(tt.n).Milliseconds(); d < tt.min || d > tt.max {
				t.Errorf("backoff(%d) = %dms, want in [%d, %d]", tt.n, d, tt.min, tt.max)
			}
		}
	}
}

func TestSecurityString(t *testing.T) {
	for s, want := range map[Security]string{SecurityTLS: "tls", SecurityStartTLS: "starttls",
		SecurityStartTLSOptional: "starttls-optional", SecurityPlain: "plain", Security(9): "Security(9)"} {
		if got := s.String(); got != want {
			t.Errorf("Security(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}

func TestListOptionsGating(t *testing.T) {
	rev1 := goimap.CapSet{goimap.CapIMAP4rev1: {}}
	ext := goimap.CapSet{goimap.CapIMAP4rev1: {}, goimap.CapListExtended: {}, goimap.CapSpecialUse: {}}
	status := goimap.CapSet{goimap.CapIMAP4rev1: {}, goimap.CapListStatus: {}}
	rev2 := goimap.CapSet{goimap.CapIMAP4rev2: {}}
	tests := []struct {
		name               string
		caps               goimap.CapSet
		counts             bool
		specialUse, status bool
	}{
		{"IMAP4rev1 only", rev1, true, false, false},
		{"LIST-EXTENDED + SPECIAL-USE", ext, true, true, false},
		{"LIST-STATUS without SPECIAL-USE", status, true, false, true},
		{"LIST-STATUS, no counts asked", status, false, false, false},
		{"IMAP4rev2", rev2, true, true, true},
	}
	for _, tt := range tests {
		o := listOptions(tt.caps, tt.counts)
		gotSU := o != nil && o.ReturnSpecialUse
		gotStatus := o != nil && o.ReturnStatus != nil
		if gotSU != tt.specialUse || gotStatus != tt.status {
			t.Errorf("%s: listOptions() = special-use %v, status %v; want %v, %v", tt.name, gotSU, gotStatus, tt.specialUse, tt.status)
		}
	}
}
