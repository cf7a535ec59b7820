package imap

import (
	"maps"
	"strings"
	"testing"
)

func TestRawBodies(t *testing.T) {
	crlf := "Content-Type: multipart/mixed; boundary=b\r\n\r\npre\r\n--b\r\n\r\none\r\n--bb\r\nnot a delimiter\r\n--b \r\nContent-Type: multipart/alternative; boundary=\"c\"\r\n\r\n--c\r\nX: y\r\n\r\ntwo-one\r\n--c--\r\n--b\r\n\r\nthree\r\n--b--\r\nepilogue"
	lf := strings.ReplaceAll(crlf, "\r\n", "\n")
	tests := []struct {
		name, raw string
		whole     bool
		want      map[string]string
	}{
		{"single part", "Subject: x\r\n\r\nbody\r\n", true, map[string]string{"1": "body\r\n"}},
		{"single part cut", "Subject: x\r\n\r\nbody\r\n", false, map[string]string{}},
		{"nested, CRLF", crlf, true, map[string]string{"1": "one\r\n--bb\r\nnot a delimiter", "2.1": "two-one", "3": "three"}},
		{"nested, LF", lf, true, map[string]string{"1": "one\n--bb\nnot a delimiter", "2.1": "two-one", "3": "three"}},
		{"cut in a part: only the parts before", crlf[:strings.Index(crlf, "thr")], false, map[string]string{"1": "one\r\n--bb\r\nnot a delimiter", "2.1": "two-one"}},
		{"cut in a delimiter", crlf[:strings.Index(crlf, "--b--")+3], false, map[string]string{"1": "one\r\n--bb\r\nnot a delimiter", "2.1": "two-one"}},
	}
	for _, tt := range tests {
		got := rawBodies([]byte(tt.raw), tt.whole)
		str := map[string]string{}
		for k, v := range got {
			str[k] = string(v)
		}
		if !maps.Equal(str, tt.want) {
			t.Errorf("%s: rawBodies() = %q, want %q", tt.name, str, tt.want)
		}
	}
}
