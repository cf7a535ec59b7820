package oauth

import (
	"errors"
	"net"
	"net/url"

	"golang.org/x/oauth2"
)

// ConfigError is a failure that only a change of configuration fixes: a
// refresh token the authorization server refuses, a wrong client id, a
// missing token file. Var names the variable to look at; Hint says what
// to do. It holds no secret.
type ConfigError struct {
	Var    string // e.g. OAUTH_REFRESH_TOKEN
	Reason string // what is wrong
	Hint   string // what to do
}

// Error implements error.
func (e *ConfigError) Error() string {
	s := e.Var + ": " + e.Reason
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// Temporary reports false: retrying does not help.
func (e *ConfigError) Temporary() bool { return false }

// TemporaryError is a failure that may pass: the token endpoint could not
// be reached or answered 5xx or 429. It holds no secret.
type TemporaryError struct {
	Op  string
	Err error
}

// Error implements error.
func (e *TemporaryError) Error() string { return e.Op + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *TemporaryError) Unwrap() error { return e.Err }

// Temporary reports true.
func (e *TemporaryError) Temporary() bool { return true }

// ErrNoToken matches a source that produced nothing usable.
var ErrNoToken = errors.New("oauth: no access token")

// refreshCodes are the token endpoint's answers (RFC 6749 section 5.2)
// that a retry does not fix.
var refreshCodes = map[string]string{
	"invalid_grant":       "the authorization server no longer accepts the refresh token (expired, revoked, or issued to another client or for other scopes)",
	"invalid_client":      "the authorization server does not know this client (OAUTH_CLIENT_ID / OAUTH_CLIENT_SECRET)",
	"unauthorized_client": "this client may not use refresh tokens",
	"invalid_scope":       "the authorization server refuses the scopes asked for (OAUTH_SCOPES)",
}

// classify turns an error of the token endpoint into a ConfigError or a
// TemporaryError; the texts are ours (the endpoint's body is not quoted).
func classify(op string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		if reason, ok := refreshCodes[re.ErrorCode]; ok {
			return &ConfigError{Var: "OAUTH_REFRESH_TOKEN", Reason: reason + " (" + re.ErrorCode + ")",
				Hint: "run `email-mcp login` again, or set OAUTH_REFRESH_TOKEN to a new one"}
		}
		if status >= 500 || status == 429 {
			return &TemporaryError{Op: op, Err: errors.New("the authorization server answered HTTP " + httpStatus(status))}
		}
		code := re.ErrorCode
		if code == "" {
			code = "HTTP " + httpStatus(status)
		}
		return &ConfigError{Var: "OAUTH_TOKEN_URL", Reason: "the token endpoint refused the request (" + clip(code) + ")",
			Hint: "check OAUTH_TOKEN_URL, OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET"}
	}
	var ue *url.Error
	var ne net.Error
	if errors.As(err, &ue) || errors.As(err, &ne) {
		return &TemporaryError{Op: op, Err: errors.New("the authorization server could not be reached")}
	}
	return &TemporaryError{Op: op, Err: errors.New("the authorization server's answer could not be used")}
}

func httpStatus(code int) string {
	b := []byte{byte('0' + code/100%10), byte('0' + code/10%10), byte('0' + code%10)}
	return string(b)
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
