package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
)

// Endpoints are an issuer's token, device authorization and
// authorization endpoints ("" when the issuer has none).
type Endpoints struct {
	TokenURL, DeviceAuthURL, AuthURL string
}

// Discover reads an issuer's endpoints from its metadata: OpenID Connect
// discovery (/.well-known/openid-configuration), else RFC 8414
// (/.well-known/oauth-authorization-server).
func Discover(ctx context.Context, client *http.Client, issuer string) (Endpoints, error) {
	if client == nil {
		client = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	base := strings.TrimRight(issuer, "/")
	var last error
	for _, p := range []string{"/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"} {
		ep, err := fetchMetadata(ctx, client, base+p)
		if err == nil {
			return ep, nil
		}
		last = err
	}
	return Endpoints{}, &ConfigError{Var: "--issuer", Reason: "no usable metadata at " + base + ": " + last.Error()}
}

func fetchMetadata(ctx context.Context, client *http.Client, url string) (Endpoints, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Endpoints{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return Endpoints{}, errors.New("cannot be reached")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Endpoints{}, errors.New("HTTP " + httpStatus(resp.StatusCode))
	}
	var m struct {
		Token  string `json:"token_endpoint"`
		Device string `json:"device_authorization_endpoint"`
		Auth   string `json:"authorization_endpoint"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m); err != nil || m.Token == "" {
		return Endpoints{}, errors.New("no token_endpoint")
	}
	return Endpoints{TokenURL: m.Token, DeviceAuthURL: m.Device, AuthURL: m.Auth}, nil
}
