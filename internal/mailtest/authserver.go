package mailtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// AuthServer is a small OAuth 2.0 authorization server on 127.0.0.1:0 for
// tests: the refresh_token grant and the device authorization grant (RFC
// 8628) at TokenURL and DeviceURL, for one client. It issues random access
// tokens that expire after TTL (Valid checks them, as a mail server's
// token check would) and can revoke refresh tokens, fail requests with
// 503, and rotate refresh tokens.
type AuthServer struct {
	Issuer, TokenURL, DeviceURL string
	ClientID, Secret            string

	mu       sync.Mutex
	TTL      time.Duration // lifetime of issued access tokens; default 1 h
	Rotate   bool          // issue a new refresh token with every refresh
	FailNext int           // answer this many token requests with 503
	// BrowserAccount is who signs in at /authorize.
	BrowserAccount string
	refresh        map[string]bool
	access         map[string]time.Time
	devices        map[string]*device // by device code
	codes          map[string]authCode
	users          map[string]string // refresh token -> account
	owner          map[string]string // access token -> account
	refreshes      int               // refresh_token grants answered with a token
	requests       int               // token endpoint requests
	// introspections counts /introspect requests.
	introspections int
}

type device struct {
	user     string // the user code
	account  string // who approved
	approved bool
}

// NewAuthServer starts one; t.Cleanup stops it.
func NewAuthServer(t *testing.T) *AuthServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, srv := ServeAuth(ln)
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// ServeAuth runs an AuthServer on ln until the returned server is closed
// (for the authserverd command of the Dovecot OAuth tier). Besides the
// endpoints it answers token introspection (RFC 7662) at /introspect, for
// Dovecot's oauth2 passdb, with the user in "email" and "username".
func ServeAuth(ln net.Listener) (*AuthServer, *http.Server) {
	s := &AuthServer{ClientID: "email-mcp-test", Secret: "client-secret-" + randHex(8), TTL: time.Hour,
		refresh: map[string]bool{}, access: map[string]time.Time{}, devices: map[string]*device{}, users: map[string]string{},
		codes: map[string]authCode{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /introspect", s.introspect)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("POST /device", s.device)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": s.Issuer, "token_endpoint": s.TokenURL,
			"device_authorization_endpoint": s.DeviceURL, "authorization_endpoint": s.Issuer + "/authorize"})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	base := "http://" + ln.Addr().String()
	s.Issuer, s.TokenURL, s.DeviceURL = base, base+"/token", base+"/device"
	return s, srv
}

// User sets the account that tokens of refresh token rt are issued for
// (what introspection reports); "" reports none.
func (s *AuthServer) User(rt, user string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users[rt] = user
}

func (s *AuthServer) introspect(w http.ResponseWriter, r *http.Request) {
	tok := r.PostFormValue("token")
	if tok == "" {
		tok = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	s.mu.Lock()
	exp, ok := s.access[tok]
	user := s.owner[tok]
	s.introspections++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if !ok || time.Now().After(exp) {
		_ = json.NewEncoder(w).Encode(map[string]any{"active": false})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"active": true, "email": user, "username": user,
		"exp": exp.Unix(), "scope": "mail"})
}

// IssueRefresh makes a refresh token the server takes.
func (s *AuthServer) IssueRefresh() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rt := "rt-" + randHex(16)
	s.refresh[rt] = true
	return rt
}

// Revoke makes a refresh token dead (invalid_grant).
func (s *AuthServer) Revoke(rt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.refresh, rt)
}

// ExpireAll makes every issued access token expired.
func (s *AuthServer) ExpireAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.access {
		s.access[k] = time.Now().Add(-time.Second)
	}
}

// Valid reports whether an access token was issued and has not expired.
func (s *AuthServer) Valid(tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.access[tok]
	return ok && time.Now().Before(exp)
}

// Approve approves the device sign-in of userCode.
func (s *AuthServer) Approve(userCode string) { s.ApproveAs(userCode, "") }

// ApproveAs approves the device sign-in of userCode as account.
func (s *AuthServer) ApproveAs(userCode, account string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.devices {
		if d.user == userCode {
			d.approved, d.account = true, account
		}
	}
}

// Counts returns the refreshes answered with a token and all token
// endpoint requests.
func (s *AuthServer) Counts() (refreshes, requests int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshes, s.requests
}

// Secrets lists every token and secret the server has issued or holds.
func (s *AuthServer) Secrets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []string{s.Secret}
	for k := range s.refresh {
		out = append(out, k)
	}
	for k := range s.access {
		out = append(out, k)
	}
	return out
}

func (s *AuthServer) token(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	if s.FailNext > 0 {
		s.FailNext--
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
	}
	if id != s.ClientID || (secret != "" && secret != s.Secret) {
		oauthError(w, http.StatusUnauthorized, "invalid_client")
		return
	}
	switch r.PostFormValue("grant_type") {
	case "refresh_token":
		rt := r.PostFormValue("refresh_token")
		if !s.refresh[rt] {
			oauthError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
		if s.Rotate {
			delete(s.refresh, rt)
			user := s.users[rt]
			rt = "rt-" + randHex(16)
			s.refresh[rt] = true
			s.users[rt] = user
		}
		s.refreshes++
		s.issue(w, rt)
	case "authorization_code":
		c, ok := s.codes[r.PostFormValue("code")]
		delete(s.codes, r.PostFormValue("code"))
		sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
		if !ok || c.redirect != r.PostFormValue("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			oauthError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
		rt := "rt-" + randHex(16)
		s.refresh[rt] = true
		s.users[rt] = c.account
		s.issue(w, rt)
	case "urn:ietf:params:oauth:grant-type:device_code":
		d := s.devices[r.PostFormValue("device_code")]
		switch {
		case d == nil:
			oauthError(w, http.StatusBadRequest, "expired_token")
		case !d.approved:
			oauthError(w, http.StatusBadRequest, "authorization_pending")
		default:
			delete(s.devices, r.PostFormValue("device_code"))
			rt := "rt-" + randHex(16)
			s.refresh[rt] = true
			s.users[rt] = d.account
			s.issue(w, rt)
		}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type")
	}
}

// issue answers a new access token (and rt); s.mu is held.
func (s *AuthServer) issue(w http.ResponseWriter, rt string) {
	at := "at-" + randHex(24)
	s.access[at] = time.Now().Add(s.TTL)
	if s.owner == nil {
		s.owner = map[string]string{}
	}
	s.owner[at] = s.users[rt]
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": at, "token_type": "Bearer",
		"expires_in": int(s.TTL / time.Second), "refresh_token": rt})
}

func (s *AuthServer) device(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("client_id") != s.ClientID {
		oauthError(w, http.StatusUnauthorized, "invalid_client")
		return
	}
	if strings.Contains(r.PostFormValue("scope"), "forbidden") { // as Google answers the mail scope
		oauthError(w, http.StatusBadRequest, "invalid_scope")
		return
	}
	s.mu.Lock()
	code, user := "dc-"+randHex(16), randHex(4)
	s.devices[code] = &device{user: user}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"device_code": code, "user_code": user,
		"verification_uri": "http://127.0.0.1/device", "expires_in": 600, "interval": 1})
}

func oauthError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code})
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// authCode is an issued authorization code and what it was issued for.
type authCode struct{ challenge, redirect, account string }

// authorize is the authorization endpoint: it signs in the "browser" at
// once (as BrowserAccount) and redirects back with a code, for the
// loopback redirect (only 127.0.0.1) with an S256 PKCE challenge.
func (s *AuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect := q.Get("redirect_uri")
	if q.Get("client_id") != s.ClientID || !strings.HasPrefix(redirect, "http://127.0.0.1:") ||
		q.Get("code_challenge_method") != "S256" || q.Get("response_type") != "code" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	code := "ac-" + randHex(16)
	s.mu.Lock()
	s.codes[code] = authCode{challenge: q.Get("code_challenge"), redirect: redirect, account: s.BrowserAccount}
	s.mu.Unlock()
	http.Redirect(w, r, redirect+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
}
