package message_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/message"
)

// crlf turns the LF line endings of a test literal into CRLF.
func crlf(s string) []byte { return []byte(strings.ReplaceAll(s, "\n", "\r\n")) }

func TestParseBodiesCases(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want message.Bodies
	}{
		{
			name: "text attachment before an HTML-only body is not the body",
			raw: `Content-Type: multipart/mixed; boundary=b

--b
Content-Type: text/plain; name="notes.txt"

attached notes
--b
Content-Type: text/html

<p>the body</p>
--b--
`,
			want: message.Bodies{Text: "the body", HTML: "<p>the body</p>", TextFromHTML: true},
		},
		{
			name: "disposition attachment without a name",
			raw: `Content-Type: multipart/mixed; boundary=b

--b
Content-Type: text/plain
Content-Disposition: attachment

not the body
--b--
`,
			want: message.Bodies{},
		},
		{
			name: "inline text with a file name is a body",
			raw: `Content-Type: multipart/mixed; boundary=b

--b
Content-Type: text/plain; charset=utf-8
Content-Disposition: inline; filename="body.txt"

inline text
--b--
`,
			want: message.Bodies{Text: "inline text"},
		},
		{
			name: "html first in alternative, both kept, first of each wins",
			raw: `Content-Type: multipart/alternative; boundary="x y"

--x y
Content-Type: text/html; charset="UTF-8"

<b>bold</b>
--x y
Content-Type: text/plain; charset="UTF-8"

plain
--x y
Content-Type: text/plain

second plain
--x y--
`,
			want: message.Bodies{Text: "plain", HTML: "<b>bold</b>"},
		},
		{
			name: "blank text/plain falls back to the HTML",
			raw: `Content-Type: multipart/alternative; boundary=b

--b
Content-Type: text/plain

  
--b
Content-Type: text/html

<p>real content</p>
--b--
`,
			want: message.Bodies{Text: "real content", HTML: "<p>real content</p>", TextFromHTML: true},
		},
		{
			name: "multipart cut short keeps the partial part",
			raw: `Content-Type: multipart/alternative; boundary=b

--b
Content-Type: text/plain

first line
second li`,
			want: message.Bodies{Text: "first line\nsecond li"},
		},
		{
			name: "multipart without boundary is read as text",
			raw:  "Content-Type: multipart/mixed\n\nhello\n",
			want: message.Bodies{Text: "hello"},
		},
		{
			name: "signed message: the signed content is the body",
			raw: `Content-Type: multipart/signed; protocol="application/pgp-signature"; micalg=pgp-sha256; boundary=s

--s
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

signed =E2=9C=93
--s
Content-Type: application/pgp-signature

-----BEGIN PGP SIGNATURE-----
--s--
`,
			want: message.Bodies{Text: "signed ✓"},
		},
		{
			name: "a forwarded message alone gives no body",
			raw: `Content-Type: message/rfc822

Subject: inner

inner body
`,
			want: message.Bodies{},
		},
		{
			name: "HTML without declared charset: meta charset is honoured",
			raw:  "Content-Type: text/html\n\n<meta charset=\"iso-8859-1\"><p>caf\xe9</p>",
			want: message.Bodies{Text: "café", HTML: "<meta charset=\"iso-8859-1\"><p>café</p>", TextFromHTML: true},
		},
		{
			name: "text without declared charset that is not UTF-8 reads as windows-1252",
			raw:  "Subject: x\n\n\x93hi\x94 caf\xe9",
			want: message.Bodies{Text: "“hi” café"},
		},
		{
			name: "unknown transfer encoding keeps the bytes",
			raw:  "Content-Type: text/plain\nContent-Transfer-Encoding: x-uuencode\n\nbegin 644 a\n",
			want: message.Bodies{Text: "begin 644 a"},
		},
		{
			name: "damaged base64: stray characters and no padding",
			raw:  "Content-Transfer-Encoding: base64\n\naGVs bG8g\n!d29y\nbGQ",
			want: message.Bodies{Text: "hello world"},
		},
		{
			name: "quoted-printable declared on a multipart is ignored",
			raw: `Content-Type: multipart/mixed; boundary=b
Content-Transfer-Encoding: quoted-printable

--b
Content-Type: text/plain

a=3Db stays =3D decoded once
--b--
`,
			want: message.Bodies{Text: "a=3Db stays =3D decoded once"},
		},
		{
			name: "header without a body",
			raw:  "Subject: only a header\n",
			want: message.Bodies{},
		},
	}
	for _, tc := range tests {
		got, err := message.ParseBodies(crlf(tc.raw))
		if err != nil || got != tc.want {
			t.Errorf("%s: ParseBodies() = %+v, %v\nwant %+v", tc.name, got, err, tc.want)
		}
	}
}

func TestParseBodiesMalformed(t *testing.T) {
	if _, err := message.ParseBodies(nil); !errors.Is(err, message.ErrMalformed) {
		t.Errorf("ParseBodies(nil) error = %v, want ErrMalformed", err)
	}
}

// TestParseBodiesDeepNesting checks that a hostile nesting depth neither
// recurses without bound nor fails.
func TestParseBodiesDeepNesting(t *testing.T) {
	var b strings.Builder
	const depth = 500
	for i := range depth {
		b.WriteString("Content-Type: multipart/mixed; boundary=b" + strconv.Itoa(i) + "\n\n--b" + strconv.Itoa(i) + "\n")
	}
	b.WriteString("Content-Type: text/plain\n\ndeep\n")
	got, err := message.ParseBodies(crlf(b.String()))
	if err != nil || got.Text != "" {
		t.Errorf("ParseBodies(depth %d) = %+v, %v; want no text beyond the depth limit, nil", depth, got, err)
	}
}
