package config

import (
	"slices"
	"strings"
)

// Provider is EMAIL_PROVIDER: a preset of hosts, ports, TLS modes, OAuth
// endpoints and scopes, and quirks. Every value it fills can still be set
// by its own variable, which wins.
type Provider string

// ProviderCustom is no preset.
const ProviderCustom Provider = "custom"

// Decode implements envconfig.Decoder.
func (p *Provider) Decode(s string) error {
	v := Provider(lower(s))
	if v == ProviderCustom {
		*p = v
		return nil
	}
	if _, ok := presets[v]; ok {
		*p = v
		return nil
	}
	return reasonError("must be one of " + strings.Join(ProviderNames(), ", "))
}

// ProviderNames lists the presets, custom last.
func ProviderNames() []string {
	var names []string
	for p := range presets {
		names = append(names, string(p))
	}
	slices.Sort(names)
	return append(names, string(ProviderCustom))
}

// preset is the variables a provider fills, as raw values.
type preset struct {
	values map[string]string
	// oauthOnly: the provider takes no password for IMAP and SMTP, so
	// EMAIL_AUTH defaults to oauth2 when no IMAP_PASSWORD is set.
	oauthOnly bool
}

// The endpoints of Google and of the Microsoft identity platform (v2.0).
const (
	googleToken  = "https://oauth2.googleapis.com/token"
	googleDevice = "https://oauth2.googleapis.com/device/code"
	msBase       = "https://login.microsoftonline.com/"
	msScopes     = "https://outlook.office.com/IMAP.AccessAsUser.All,https://outlook.office.com/SMTP.Send,offline_access"
)

func google() preset {
	return preset{values: map[string]string{
		"IMAP_HOST": "imap.gmail.com", "IMAP_PORT": "993", "IMAP_SSL": "true",
		"SMTP_HOST": "smtp.gmail.com", "SMTP_PORT": "465", "SMTP_SSL": "true",
		"OAUTH_TOKEN_URL": googleToken, "OAUTH_DEVICE_AUTH_URL": googleDevice,
		"OAUTH_AUTH_URL": "https://accounts.google.com/o/oauth2/v2/auth",
		"OAUTH_SCOPES":   "https://mail.google.com/",
		// Gmail files every message sent through its SMTP in Sent itself:
		// a copy of ours would be a second one.
		"SAVE_SENT": "false",
	}}
}

func microsoft(tenant, smtpHost string) preset {
	return preset{oauthOnly: true, values: map[string]string{
		"IMAP_HOST": "outlook.office365.com", "IMAP_PORT": "993", "IMAP_SSL": "true",
		"SMTP_HOST": smtpHost, "SMTP_PORT": "587", "SMTP_SSL": "false", "SMTP_STARTTLS": "true",
		"OAUTH_TOKEN_URL":       msBase + tenant + "/oauth2/v2.0/token",
		"OAUTH_DEVICE_AUTH_URL": msBase + tenant + "/oauth2/v2.0/devicecode",
		"OAUTH_AUTH_URL":        msBase + tenant + "/oauth2/v2.0/authorize",
		"OAUTH_SCOPES":          msScopes,
	}}
}

func passwordOnly(imapHost, smtpHost, smtpPort string) preset {
	v := map[string]string{
		"IMAP_HOST": imapHost, "IMAP_PORT": "993", "IMAP_SSL": "true",
		"SMTP_HOST": smtpHost, "SMTP_PORT": smtpPort,
	}
	if smtpPort == "465" {
		v["SMTP_SSL"] = "true"
	} else {
		v["SMTP_SSL"], v["SMTP_STARTTLS"] = "false", "true"
	}
	return preset{values: v}
}

// presets are the providers' published settings (not tried from here: the
// build machine has no internet).
var presets = map[Provider]preset{
	"gmail":            google(),
	"google-workspace": google(),
	// Outlook.com accounts sign in at the consumers tenant; work and school
	// accounts (Microsoft 365) at organizations, or set your tenant's id in
	// OAUTH_TOKEN_URL and OAUTH_DEVICE_AUTH_URL.
	"outlook":   microsoft("consumers", "smtp-mail.outlook.com"),
	"office365": microsoft("organizations", "smtp.office365.com"),
	// These take an app-specific password; Yahoo and Zoho also take OAuth
	// tokens with an app registered with them (set the OAUTH_ variables).
	"icloud":   passwordOnly("imap.mail.me.com", "smtp.mail.me.com", "587"),
	"fastmail": passwordOnly("imap.fastmail.com", "smtp.fastmail.com", "465"),
	"yahoo":    withToken(passwordOnly("imap.mail.yahoo.com", "smtp.mail.yahoo.com", "465"), "https://api.login.yahoo.com/oauth2/get_token"),
	"zoho":     withToken(passwordOnly("imap.zoho.com", "smtp.zoho.com", "465"), "https://accounts.zoho.com/oauth/v2/token"),
}

func withToken(p preset, tokenURL string) preset {
	p.values["OAUTH_TOKEN_URL"] = tokenURL
	return p
}
