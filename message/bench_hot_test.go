package message_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"mime/quotedprintable"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/message"
)

// Benchmarks of read_email's decoding of typical and large mail (the 1 MB
// HTML-only newsletter is in bench_test.go):
//
//	go test ./message -run '^$' -bench Hot -benchmem

// hotHeader is the header of a mail that went through a list and two
// relays: Received lines, DKIM and ARC signatures, List-* fields, RFC 2047
// words in two charsets; about 6 KB.
func hotHeader() string {
	var h strings.Builder
	for i := range 12 {
		fmt.Fprintf(&h, "Received: from mx%d.example.net (mx%d.example.net [192.0.2.%d])\r\n\tby relay.example.org (Postfix) with ESMTPS id 4Z%dQx\r\n\tfor <bob@example.test>; Mon, 02 Mar 2026 09:00:%02d +0000\r\n", i, i, i, i, i)
	}
	sig := strings.Repeat("dGhpcyBpcyBub3QgYSByZWFsIHNpZ25hdHVyZQ", 8)
	for _, f := range []string{"DKIM-Signature", "ARC-Seal", "ARC-Message-Signature"} {
		fmt.Fprintf(&h, "%s: v=1; a=rsa-sha256; d=example.org; s=sel;\r\n\tb=%s\r\n", f, sig)
	}
	h.WriteString("From: =?ISO-8859-1?Q?Fran=E7ois_M=FCller?= <francois@example.org>\r\n" +
		"To: \"Bob Durand\" <bob@example.test>, =?UTF-8?B?w4lsb2RpZQ==?= <elodie@example.test>, team@example.test\r\n" +
		"Cc: alice@example.test\r\nReply-To: list@lists.example.org\r\n" +
		"Subject: =?UTF-8?Q?R=C3=A9union_de_l'=C3=A9quipe_=E2=80=94_ordre_du_jour?= =?UTF-8?Q?_et_compte_rendu?=\r\n" +
		"Date: Mon, 02 Mar 2026 09:00:00 +0100\r\nMessage-ID: <20260302090000.abc123@example.org>\r\n" +
		"In-Reply-To: <20260301.xyz@example.test>\r\nReferences: <a1@example.test> <b2@example.test> <20260301.xyz@example.test>\r\n" +
		"List-Id: Team <team.lists.example.org>\r\nList-Unsubscribe: <https://lists.example.org/u?id=1>, <mailto:unsub@lists.example.org>\r\n" +
		"MIME-Version: 1.0\r\n")
	return h.String()
}

// hotMixedMail is a ~900 KB multipart/mixed mail as read_email gets it
// whole (under its 1 MiB prefix): text and HTML alternatives, then a PDF,
// a PNG and a CSV in base64.
func hotMixedMail() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	blob := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		var out strings.Builder
		enc := base64.StdEncoding.EncodeToString(b)
		for len(enc) > 76 {
			out.WriteString(enc[:76] + "\r\n")
			enc = enc[76:]
		}
		out.WriteString(enc + "\r\n")
		return out.String()
	}
	var text, html strings.Builder
	for i := 0; text.Len() < 20<<10; i++ {
		fmt.Fprintf(&text, "Point %d: the figures are in the attached report; see page %d for the details.\r\n", i, i%40+1)
		fmt.Fprintf(&html, "<tr><td>Point %d</td><td>the <b>figures</b> are in the <a href=\"https://example.org/r/%d\">report</a></td></tr>\r\n", i, i)
	}
	var b bytes.Buffer
	b.WriteString(hotHeader())
	b.WriteString("Content-Type: multipart/mixed; boundary=\"mix\"\r\n\r\n--mix\r\n" +
		"Content-Type: multipart/alternative; boundary=\"alt\"\r\n\r\n--alt\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n")
	b.WriteString(text.String())
	b.WriteString("--alt\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body><table>")
	b.WriteString(html.String())
	b.WriteString("</table></body></html>\r\n--alt--\r\n")
	for _, a := range []struct {
		name, ctype string
		size        int
	}{{"report.pdf", "application/pdf", 450 << 10}, {"chart.png", "image/png", 180 << 10}, {"data.csv", "text/csv", 40 << 10}} {
		fmt.Fprintf(&b, "--mix\r\nContent-Type: %s; name=%q\r\nContent-Disposition: attachment; filename=%q\r\nContent-Transfer-Encoding: base64\r\n\r\n", a.ctype, a.name, a.name)
		b.WriteString(blob(a.size))
	}
	b.WriteString("--mix--\r\n")
	return b.Bytes()
}

// hotLatin1Mail is a 20 KB quoted-printable ISO-8859-1 text mail.
func hotLatin1Mail() []byte {
	var body bytes.Buffer
	w := quotedprintable.NewWriter(&body)
	for i := 0; body.Len() < 20<<10; i++ {
		fmt.Fprintf(w, "Ligne %d : d\xe9j\xe0 vu, caf\xe9 cr\xe8me et cr\xeape br\xfbl\xe9e \xe0 l'h\xf4tel.\r\n", i)
	}
	_ = w.Close()
	return []byte(hotHeader() + "Content-Type: text/plain; charset=ISO-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" + body.String())
}

// TestHotMails checks what the benchmarks decode.
func TestHotMails(t *testing.T) {
	h, err := message.ParseHeader([]byte(hotHeader() + "\r\n"))
	if err != nil || h.Subject != "Réunion de l'équipe — ordre du jour et compte rendu" || len(h.To) != 3 || h.From[0].Name != "François Müller" {
		t.Errorf("ParseHeader(hot) = %+v, %v", h, err)
	}
	for _, tc := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"mixed", hotMixedMail(), "Point 3: the figures are in the attached report"},
		{"latin1", hotLatin1Mail(), "Ligne 7 : déjà vu, café crème et crêpe brûlée à l'hôtel."},
	} {
		b, err := message.ParseBodies(tc.raw)
		if err != nil || !strings.Contains(b.Text, tc.want) {
			t.Errorf("ParseBodies(%s) = %.80q, %v; want it to contain %q", tc.name, b.Text, err, tc.want)
		}
	}
}

func BenchmarkHotParseHeader(b *testing.B) {
	raw := []byte(hotHeader() + "\r\nbody\r\n")
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := message.ParseHeader(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHotParseBodies(b *testing.B) {
	for _, bc := range []struct {
		name string
		raw  []byte
	}{{"mixed-900KB-3-attachments", hotMixedMail()}, {"latin1-qp-20KB", hotLatin1Mail()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := message.ParseBodies(bc.raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHotCleanWindow: read_email's cleaning and windowing of a 200 KB
// body, at an offset in its middle.
func BenchmarkHotCleanWindow(b *testing.B) {
	text := strings.Repeat("Une ligne de texte ordinaire, avec des accents: é, è, ê — et un lien https://example.org/x.\n", 2200)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		clean, _ := message.CleanText(text)
		if chunk, _, _ := message.Window(clean, 100000, 20000); chunk == "" {
			b.Fatal("empty window")
		}
	}
}
