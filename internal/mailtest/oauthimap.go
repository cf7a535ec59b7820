package mailtest

import (
	"net"
	"slices"
	"testing"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	"github.com/emersion/go-sasl"
)

// NewOAuthIMAP starts an in-process IMAP server on 127.0.0.1:0 (plain
// text) whose one user, user, signs in only with AUTHENTICATE and a bearer
// token (mechs: XOAUTH2, OAUTHBEARER) that check accepts. It returns the
// port; t.Cleanup stops it.
func NewOAuthIMAP(t *testing.T, user string, mechs []string, check BearerCheck) int {
	t.Helper()
	u := imapmemserver.NewUser(user, "")
	if err := u.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return &tokenSession{user: u, name: user, mechs: mechs, check: check}, nil, nil
		},
		Caps:         goimap.CapSet{goimap.CapIMAP4rev1: {}},
		InsecureAuth: true,
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = ln.Close(); <-done; _ = srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

type tokenSession struct {
	*imapmemserver.UserSession
	user  *imapmemserver.User
	name  string
	mechs []string
	check BearerCheck
}

func (s *tokenSession) Login(string, string) error { return imapserver.ErrAuthFailed }

func (s *tokenSession) Close() error {
	if s.UserSession != nil {
		return s.UserSession.Close()
	}
	return nil
}

func (s *tokenSession) AuthenticateMechanisms() []string { return s.mechs }

func (s *tokenSession) Authenticate(mech string) (sasl.Server, error) {
	if !slices.Contains(s.mechs, mech) {
		return nil, &goimap.Error{Type: goimap.StatusResponseTypeNo, Text: "unsupported mechanism"}
	}
	check := func(user, token string) *sasl.OAuthBearerError {
		if user != s.name {
			return &sasl.OAuthBearerError{Status: "400", Schemes: "bearer"}
		}
		e := s.check(user, token)
		if e == nil {
			s.UserSession = imapmemserver.NewUserSession(s.user)
		}
		return e
	}
	refused := func(_, token string) error {
		return &goimap.Error{Type: goimap.StatusResponseTypeNo, Code: goimap.ResponseCodeAuthenticationFailed,
			Text: "invalid token " + token}
	}
	return BearerServer(mech, check, refused), nil
}
