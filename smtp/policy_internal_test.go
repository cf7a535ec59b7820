package smtp

import (
	"errors"
	"testing"
)

func TestAuthPolicy(t *testing.T) {
	tests := []struct {
		host       string
		encrypted  bool
		allowPlain bool
		wantOK     bool
	}{
		{"smtp.example.com", true, false, true},
		{"smtp.example.com", false, false, false},
		{"smtp.example.com", false, true, true},
		{"203.0.113.7", false, false, false},
		{"10.0.0.1", false, false, false},
		{"127.0.0.1", false, false, true},
		{"127.8.9.10", false, false, true},
		{"::1", false, false, true},
		{"[::1]", false, false, true},
		{"::ffff:127.0.0.1", false, false, true},
		{"localhost", false, false, true},
		{"LocalHost", false, false, true},
		{"LocalHost.", false, false, false}, // DNS may answer for the absolute name
		{"127.0.0.1.", false, false, false},
		{"::1%lo", false, false, true},
		{"fe80::1%lo", false, false, false},
		{"localhost.example.com", false, false, false},
		{"127.0.0.1.example.com", false, false, false},
		{"", false, false, false},
	}
	for _, tt := range tests {
		err := authPolicy(tt.host, tt.encrypted, tt.allowPlain)
		if (err == nil) != tt.wantOK {
			t.Errorf("authPolicy(%q, encrypted=%v, allowPlain=%v) = %v, want ok=%v", tt.host, tt.encrypted, tt.allowPlain, err, tt.wantOK)
		}
		if err != nil && (!errors.Is(err, ErrInsecureAuth) || !errors.Is(err, ErrTLS)) {
			t.Errorf("authPolicy(%q) = %v, want ErrInsecureAuth (an ErrTLS)", tt.host, err)
		}
	}
}

func TestLoginClient(t *testing.T) {
	tests := []struct {
		name       string
		challenges []string
		want       []string
		wantErr    bool
	}{
		{"standard prompts", []string{"Username:", "Password:"}, []string{"u", "p"}, false},
		{"lower case", []string{"username:", "password:"}, []string{"u", "p"}, false},
		{"unknown prompts in order", []string{"", ""}, []string{"u", "p"}, false},
		{"password asked first", []string{"Password:"}, []string{"p"}, false},
		{"a third challenge", []string{"Username:", "Password:", "More:"}, []string{"u", "p"}, true},
	}
	for _, tt := range tests {
		c := &loginClient{user: "u", pass: "p"}
		mech, ir, err := c.Start()
		if mech != "LOGIN" || ir != nil || err != nil {
			t.Fatalf("Start() = %q, %q, %v", mech, ir, err)
		}
		var got []string
		var gotErr error
		for _, ch := range tt.challenges {
			resp, err := c.Next([]byte(ch))
			if err != nil {
				gotErr = err
				break
			}
			got = append(got, string(resp))
		}
		if (gotErr != nil) != tt.wantErr || len(got) != len(tt.want) {
			t.Errorf("%s: responses %q, err %v; want %q, err=%v", tt.name, got, gotErr, tt.want, tt.wantErr)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: responses %q, want %q", tt.name, got, tt.want)
			}
		}
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ok", "ok"},
		{"a\r\nb\tc\x00d", "a b c d"},
		{"  spaced   out  ", "spaced out"},
	}
	for _, tt := range tests {
		if got := sanitize(tt.in); got != tt.want {
			t.Errorf("sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := ""
	for range 300 {
		long += "é"
	}
	got := sanitize(long)
	if len(got) > maxReason+len("…") || got[len(got)-len("…"):] != "…" {
		t.Errorf("sanitize(long) = %d bytes %q, want cut at %d with an ellipsis", len(got), got, maxReason)
	}
}

func TestBase64Len(t *testing.T) {
	// 57 input bytes make one full 76-character line.
	tests := []struct{ n, want int64 }{{0, 0}, {1, 4}, {57, 76}, {58, 76 + 2 + 4}, {114, 76 + 2 + 76}}
	for _, tt := range tests {
		if got := base64Len(tt.n); got != tt.want {
			t.Errorf("base64Len(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}
