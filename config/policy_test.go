package config_test

import (
	"slices"
	"strings"
	"testing"
)

func TestPlaintextPolicy(t *testing.T) {
	tests := []struct {
		name string
		kv   []string
		want []string // names of the errors; nil means allowed
	}{
		{"IMAP implicit TLS", nil, nil},
		{"IMAP STARTTLS required", []string{"IMAP_SSL", "false", "IMAP_STARTTLS", "true"}, nil},
		{"IMAP STARTTLS none is weaker but allowed", []string{"IMAP_SSL", "false", "IMAP_STARTTLS", "none"}, nil},
		{"IMAP plain text to a remote host", []string{"IMAP_SSL", "false", "IMAP_STARTTLS", "false"}, []string{"IMAP_STARTTLS"}},
		{"IMAP plain text allowed", []string{"IMAP_SSL", "false", "IMAP_STARTTLS", "false", "IMAP_ALLOW_PLAINTEXT", "true"}, nil},
		{"IMAP plain text to localhost", []string{"IMAP_HOST", "LocalHost", "IMAP_SSL", "false", "IMAP_STARTTLS", "false"}, nil},
		// Go's resolver asks DNS for "localhost." (only "localhost" comes from /etc/hosts).
		{"IMAP plain text to localhost.", []string{"IMAP_HOST", "localhost.", "IMAP_SSL", "false", "IMAP_STARTTLS", "false"}, []string{"IMAP_STARTTLS"}},
		{"IMAP plain text to 127.0.0.2", []string{"IMAP_HOST", "127.0.0.2", "IMAP_SSL", "false", "IMAP_STARTTLS", "false"}, nil},
		{"IMAP plain text to ::1", []string{"IMAP_HOST", "::1", "IMAP_SSL", "false", "IMAP_STARTTLS", "false"}, nil},
		{"IMAP plain text to [::1]", []string{"IMAP_HOST", "[::1]", "IMAP_SSL", "false", "IMAP_STARTTLS", "false"}, nil},
		{"IMAP plain text to 10.0.0.1", []string{"IMAP_HOST", "10.0.0.1", "IMAP_SSL", "false", "IMAP_STARTTLS", "false"}, []string{"IMAP_STARTTLS"}},
		{"IMAP plain text to localhost.example.com", []string{"IMAP_HOST", "localhost.example.com", "IMAP_SSL", "false", "IMAP_STARTTLS", "0"}, []string{"IMAP_STARTTLS"}},
		{"IMAP STARTTLS=false ignored under implicit TLS", []string{"IMAP_STARTTLS", "false"}, nil},

		{"SMTP STARTTLS default", nil, nil},
		{"SMTP plain text to a remote host", []string{"SMTP_STARTTLS", "false"}, []string{"SMTP_STARTTLS"}},
		{"SMTP plain text allowed", []string{"SMTP_STARTTLS", "false", "SMTP_ALLOW_PLAINTEXT", "yes"}, nil},
		{"SMTP plain text to 127.0.0.1", []string{"SMTP_HOST", "127.0.0.1", "SMTP_STARTTLS", "false"}, nil},
		{"SMTP implicit TLS ignores STARTTLS=false", []string{"SMTP_SSL", "true", "SMTP_STARTTLS", "false"}, nil},
		{"SMTP port 465 ignores STARTTLS=false", []string{"SMTP_PORT", "465", "SMTP_STARTTLS", "false"}, nil},
		{"SMTP implicit TLS with STARTTLS=true", []string{"SMTP_SSL", "true", "SMTP_STARTTLS", "true"}, nil},
		{"SMTP allowance does not cover IMAP", []string{"IMAP_SSL", "false", "IMAP_STARTTLS", "false", "SMTP_ALLOW_PLAINTEXT", "true"}, []string{"IMAP_STARTTLS"}},
		{"both refused", []string{"IMAP_SSL", "false", "IMAP_STARTTLS", "false", "SMTP_STARTTLS", "false"}, []string{"IMAP_STARTTLS", "SMTP_STARTTLS"}},
		{"read-only without SMTP", []string{"SMTP_HOST", "\x00", "MCP_READ_ONLY", "true", "SMTP_STARTTLS", "false"}, nil},
		{"sandbox is never refused", []string{"IMAP_HOST", "", "IMAP_SSL", "false", "IMAP_STARTTLS", "false", "SMTP_STARTTLS", "false"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, with(realAccount, tt.kv...))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Load() = %v, want nil", err)
				}
				return
			}
			errs := varErrors(t, err)
			if got := names(errs); !slices.Equal(got, tt.want) {
				t.Fatalf("Load() errors for %q, want %q", got, tt.want)
			}
			for _, e := range errs {
				allow := strings.TrimSuffix(e.Name, "_STARTTLS") + "_ALLOW_PLAINTEXT"
				if !strings.Contains(e.Error(), allow) || e.Value != "false" {
					t.Errorf("Error() = %q, want it to name %s and the value false", e, allow)
				}
			}
		})
	}
}
