package mailtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/emersion/go-sasl"
)

// BearerCheck decides on a token: nil accepts it, an error challenge
// ({"status":"401",...}) refuses it.
type BearerCheck func(user, token string) *sasl.OAuthBearerError

// BearerServer is the server side of XOAUTH2 or OAUTHBEARER (mech) for
// tests: it reads the initial response, asks check, and on a refusal sends
// check's answer as the error challenge, then ends with refused(user,
// token) (an *imap.Error or a *smtp.SMTPError, as the protocol wants) once
// the client has answered the challenge.
func BearerServer(mech string, check BearerCheck, refused func(user, token string) error) sasl.Server {
	return &bearerServer{mech: strings.ToUpper(mech), check: check, refused: refused}
}

type bearerServer struct {
	mech        string
	check       BearerCheck
	refused     func(user, token string) error
	user, token string
	failed      bool
}

// Next implements sasl.Server.
func (s *bearerServer) Next(resp []byte) ([]byte, bool, error) {
	if s.failed {
		return nil, true, s.refused(s.user, s.token)
	}
	if resp == nil {
		return []byte{}, false, nil // ask for the initial response
	}
	var ok bool
	if s.mech == "OAUTHBEARER" {
		s.user, s.token, ok = parseOAuthBearer(resp)
	} else {
		s.user, s.token, ok = parseXOAuth2(resp)
	}
	if !ok {
		return nil, true, errors.New("malformed " + s.mech + " message")
	}
	e := s.check(s.user, s.token)
	if e == nil {
		return nil, true, nil
	}
	s.failed = true
	blob, err := json.Marshal(e)
	return blob, false, err
}

// parseXOAuth2 reads "user=U\x01auth=Bearer T\x01\x01".
func parseXOAuth2(resp []byte) (user, token string, ok bool) {
	for f := range bytes.SplitSeq(resp, []byte{1}) {
		s := string(f)
		switch {
		case strings.HasPrefix(s, "user="):
			user = s[len("user="):]
		case strings.HasPrefix(s, "auth=Bearer "):
			token, ok = s[len("auth=Bearer "):], true
		}
	}
	return user, token, ok && user != ""
}

// parseOAuthBearer reads "n,a=U,\x01host=H\x01port=P\x01auth=Bearer T\x01\x01".
func parseOAuthBearer(resp []byte) (user, token string, ok bool) {
	parts := bytes.SplitN(resp, []byte{','}, 3)
	if len(parts) != 3 || string(parts[0]) != "n" {
		return "", "", false
	}
	user = strings.TrimPrefix(string(parts[1]), "a=")
	for f := range bytes.SplitSeq(parts[2], []byte{1}) {
		if s := string(f); strings.HasPrefix(s, "auth=Bearer ") {
			token, ok = s[len("auth=Bearer "):], true
		}
	}
	return user, token, ok
}
