package saslbearer_test

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/internal/saslbearer"
)

func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		offered    []string
		want, pick string
	}{
		{[]string{"PLAIN", "XOAUTH2", "OAUTHBEARER"}, "", "OAUTHBEARER"},
		{[]string{"plain", "xoauth2"}, "", "XOAUTH2"},
		{[]string{"XOAUTH2", "OAUTHBEARER"}, "xoauth2", "XOAUTH2"},
		{[]string{"XOAUTH2"}, "OAUTHBEARER", ""},
		{[]string{"PLAIN", "LOGIN"}, "", ""},
		{[]string{"XOAUTH2"}, "auto", "XOAUTH2"},
	} {
		if got := saslbearer.Choose(tc.offered, tc.want); got != tc.pick {
			t.Errorf("Choose(%q, %q) = %q, want %q", tc.offered, tc.want, got, tc.pick)
		}
	}
}

// TestExchange: the initial responses are the documented ones, the error
// challenge is answered so the server can end the exchange, and Secrets
// covers the token in every form that went on the wire.
func TestExchange(t *testing.T) {
	const tok = "tok-123"
	for _, tc := range []struct {
		mech, initial string
		answer        []byte
	}{
		{saslbearer.XOAuth2, "user=u@example.com\x01auth=Bearer tok-123\x01\x01", []byte{}},
		{saslbearer.OAuthBearer, "n,a=u@example.com,\x01host=imap.example.com\x01port=993\x01auth=Bearer tok-123\x01\x01", []byte{1}},
	} {
		c := saslbearer.New(tc.mech, "u@example.com", tok, "imap.example.com", 993)
		mech, ir, err := c.Start()
		if err != nil || mech != tc.mech || string(ir) != tc.initial {
			t.Errorf("%s Start() = %q, %q, %v; want %q", tc.mech, mech, ir, err, tc.initial)
		}
		challenge := []byte(`{"status":"400","schemes":"Bearer","scope":"https://mail.google.com/"}`)
		resp, err := c.Next(challenge)
		if err != nil || string(resp) != string(tc.answer) {
			t.Errorf("%s Next(error challenge) = %q, %v; want %q, nil", tc.mech, resp, err, tc.answer)
		}
		secrets := c.Secrets()
		for _, want := range []string{tok, base64.StdEncoding.EncodeToString(ir), base64.StdEncoding.EncodeToString(challenge)} {
			if !slices.Contains(secrets, want) {
				t.Errorf("%s Secrets() lacks %q", tc.mech, want)
			}
		}
		if h := c.Refusal().Hint(); !strings.Contains(h, "issued for") || strings.Contains(h, tok) {
			t.Errorf("%s Hint() = %q, want the wrong-user hint without the token", tc.mech, h)
		}
	}
	var none *saslbearer.Refusal
	if h := none.Hint(); !strings.Contains(h, "refused the OAuth token") {
		t.Errorf("nil Refusal Hint() = %q", h)
	}
}
