package memstore

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	_ "github.com/emersion/go-message/charset" // as in the binary: both sides decode charsets
)

// mimeCorpus is mail within the bounds: the repository's .eml files and
// shapes that stress the walk (preamble, epilogue, LF line ends, a
// boundary with trailing blanks, empty parts, a missing close delimiter,
// nesting of both kinds).
func mimeCorpus(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{
		"plain": []byte("From: a@x.test\r\nSubject: hi\r\n\r\nhello\r\nworld\r\n"),
		"mixed": []byte("Subject: mixed\r\nContent-Type: multipart/mixed; boundary=\"b1\"\r\n\r\npreamble\r\n--b1\r\n" +
			"Content-Type: multipart/alternative; boundary=b2\r\n\r\n--b2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nplain text\r\n" +
			"--b2\r\nContent-Type: text/html\r\n\r\n<p>html</p>\r\n--b2--\r\n--b1\r\nContent-Type: application/pdf; name=\"a.pdf\"\r\n" +
			"Content-Disposition: attachment; filename=\"a.pdf\"\r\nContent-Transfer-Encoding: base64\r\nContent-Language: en, de\r\n\r\nJVBERi0xLjQK\r\n--b1--\r\nepilogue\r\n"),
		"forwarded": []byte("Subject: fwd\r\nContent-Type: multipart/mixed; boundary=o\r\n\r\n--o\r\nContent-Type: text/plain\r\n\r\nsee below\r\n" +
			"--o\r\nContent-Type: message/rfc822\r\n\r\nFrom: b@y.test\r\nSubject: inner\r\nContent-Type: multipart/mixed; boundary=i\r\n\r\n" +
			"--i\r\nContent-Type: text/plain\r\n\r\ninner text with code 123456\r\n--i--\r\n--o--\r\n"),
		"lf":          []byte("Subject: lf\nContent-Type: multipart/mixed; boundary=x\n\n--x\nContent-Type: text/plain\n\none\n--x  \n\ntwo, no header\n--x--  \n"),
		"empty parts": []byte("Content-Type: multipart/mixed; boundary=e\r\n\r\n--e\r\n\r\n--e\r\nContent-Type: text/plain\r\n\r\n--e--\r\n"),
		"unclosed":    []byte("Content-Type: multipart/mixed; boundary=u\r\n\r\n--u\r\nContent-Type: text/plain\r\n\r\ncut short\r\n"),
		"rfc822 top":  []byte("Subject: outer\r\nContent-Type: message/rfc822\r\n\r\nSubject: inner\r\n\r\nbody\r\n"),
	}
	out["nested rfc822 5"] = nestedRFC822(5, 0)
	out["nested multipart 5"] = nestedMultipart(5)
	for _, glob := range []string{"../../../message/testdata/*.eml", "../../../imap/testdata/*.eml"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.Base(f)] = b
		}
	}
	return out
}

// nestedRFC822 is a message whose body is a message/rfc822 part, depth
// times over, each level padded with pad bytes of text.
func nestedRFC822(depth, pad int) []byte {
	var b bytes.Buffer
	for i := range depth {
		fmt.Fprintf(&b, "From: l%d@x.test\r\nSubject: level %d\r\nContent-Type: message/rfc822\r\n\r\n", i, i)
	}
	b.WriteString("From: leaf@x.test\r\nSubject: leaf\r\n\r\ncode 424242 ")
	b.WriteString(strings.Repeat("x", pad))
	b.WriteString("\r\n")
	return b.Bytes()
}

// nestedMultipart is a multipart/mixed in a multipart/mixed, depth times
// over, with a text part at each level.
func nestedMultipart(depth int) []byte {
	var b bytes.Buffer
	b.WriteString("Subject: nested\r\n")
	for i := range depth {
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\nContent-Type: text/plain\r\n\r\ntext %d\r\n--b%d\r\n", i, i, i, i)
	}
	b.WriteString("Content-Type: text/plain\r\n\r\ncode 424242\r\n")
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\r\n", i)
	}
	return b.Bytes()
}

// Within the bounds the walk answers what upstream's helpers answer:
// BODYSTRUCTURE, every section of every part, BINARY of every part.
func TestMIMEMatchesUpstream(t *testing.T) {
	for name, buf := range mimeCorpus(t) {
		root := parseMIME(buf)
		want := imapserver.ExtractBodyStructure(bytes.NewReader(buf))
		got := root.bodyStructure(buf)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: BODYSTRUCTURE\n got %s\nwant %s", name, dump(got), dump(want))
			continue
		}
		if name == "unclosed" {
			// Upstream serves nothing for the parts of a multipart without
			// its close delimiter (io.Copy ends in ErrUnexpectedEOF) while
			// its BODYSTRUCTURE counts their bytes; the walk serves them.
			if got := bodySection(buf, root, &imap.FetchItemBodySection{Part: []int{1}}); string(got) != "cut short" {
				t.Errorf("unclosed: BODY[1] = %q, want %q", got, "cut short")
			}
			continue
		}
		var paths [][]int
		walkParts(want, nil, func(path []int, _ imap.BodyStructure) {
			paths = append(paths, path)
		})
		paths = append(paths, []int{1, 1, 1}, []int{9}, []int{2, 7})
		for _, path := range paths {
			for _, item := range sectionItems(path) {
				if got, want := bodySection(buf, root, item), imapserver.ExtractBodySection(bytes.NewReader(buf), item); !bytes.Equal(got, want) {
					t.Errorf("%s: BODY[%v %s %v]\n got %q\nwant %q", name, path, item.Specifier, item.HeaderFields, got, want)
				}
			}
			if len(path) == 0 {
				continue // upstream's helper answers it (message.fetch)
			}
			bin := &imap.FetchItemBinarySection{Part: path}
			if got, want := binarySection(buf, root, path, nil), imapserver.ExtractBinarySection(bytes.NewReader(buf), bin); !bytes.Equal(got, want) {
				t.Errorf("%s: BINARY[%v]\n got %q\nwant %q", name, path, got, want)
			}
		}
	}
}

// walkParts calls f with the section path of every part, the parts of
// messages inside message/rfc822 parts included (imap.BodyStructure.Walk
// does not go there).
func walkParts(bs imap.BodyStructure, path []int, f func([]int, imap.BodyStructure)) {
	switch bs := bs.(type) {
	case *imap.BodyStructureMultiPart:
		if path != nil {
			f(path, bs)
		}
		for i, c := range bs.Children {
			walkParts(c, append(slices.Clone(path), i+1), f)
		}
	case *imap.BodyStructureSinglePart:
		if path == nil {
			path = []int{1}
		}
		f(path, bs)
		if bs.MessageRFC822 != nil {
			inner := bs.MessageRFC822.BodyStructure
			if _, ok := inner.(*imap.BodyStructureMultiPart); ok {
				walkParts(inner, slices.Clone(path), f)
			} else {
				walkParts(inner, append(slices.Clone(path), 1), f)
			}
		}
	}
}

func sectionItems(path []int) []*imap.FetchItemBodySection {
	if len(path) == 0 {
		return nil
	}
	return []*imap.FetchItemBodySection{
		{Part: path},
		{Part: path, Specifier: imap.PartSpecifierHeader},
		{Part: path, Specifier: imap.PartSpecifierText},
		{Part: path, Specifier: imap.PartSpecifierMIME},
		{Part: path, Specifier: imap.PartSpecifierHeader, HeaderFields: []string{"Subject", "Content-Type"}},
		{Part: path, Specifier: imap.PartSpecifierHeader, HeaderFieldsNot: []string{"Subject"}},
		{Part: path, Partial: &imap.SectionPartial{Offset: 2, Size: 5}},
	}
}

func dump(bs imap.BodyStructure) string {
	var b strings.Builder
	bs.Walk(func(path []int, p imap.BodyStructure) bool {
		switch p := p.(type) {
		case *imap.BodyStructureSinglePart:
			fmt.Fprintf(&b, "%v %s/%s size=%d %+v; ", path, p.Type, p.Subtype, p.Size, p.Text)
		case *imap.BodyStructureMultiPart:
			fmt.Fprintf(&b, "%v multipart/%s n=%d; ", path, p.Subtype, len(p.Children))
		}
		return true
	})
	return b.String()
}

// SEARCH TEXT and BODY over the walk find what upstream's imapmemserver
// finds, for every message of the corpus.
func TestMIMESearchMatchesUpstream(t *testing.T) {
	patterns := []string{"code", "424242", "123456", "inner text", "HTML", "budget", "Subject", "attachment", "nothing-like-this", "f\u00fcr"}
	for name, buf := range mimeCorpus(t) {
		msg := &message{buf: buf, flags: map[imap.Flag]struct{}{}}
		for _, p := range patterns {
			for _, c := range []imap.SearchCriteria{{Text: []string{p}}, {Body: []string{p}}} {
				got := msg.search(1, &c)
				if want := upstreamSearch(t, buf, &c); got != want {
					t.Errorf("%s: SEARCH %+v = %v, upstream %v", name, c, got, want)
				}
			}
		}
	}
}

// upstreamSearch runs one SEARCH in go-imap's own imapmemserver.
func upstreamSearch(t *testing.T, buf []byte, c *imap.SearchCriteria) bool {
	t.Helper()
	u := imapmemserver.NewUser("u", "p")
	if err := u.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Append("INBOX", bytes.NewReader(buf), &imap.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	sess := imapmemserver.NewUserSession(u)
	defer sess.Close()
	if _, err := sess.Select("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	cc := *c
	data, err := sess.Search(imapserver.NumKindUID, &cc, &imap.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return data.Count == 1
}

// Past the bounds a part is an opaque leaf: the answer stays bounded however
// deep or wide the mail is, and the bytes are still all served.
func TestMIMEBounds(t *testing.T) {
	wide := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString("Content-Type: multipart/mixed; boundary=w\r\n\r\n")
		for i := range n {
			fmt.Fprintf(&b, "--w\r\nContent-Type: text/plain\r\n\r\npart %d\r\n", i)
		}
		b.WriteString("--w--\r\n")
		return b.Bytes()
	}
	for _, tt := range []struct {
		name      string
		buf       []byte
		wantDepth int
		wantParts int
	}{
		{"rfc822 8000 deep", nestedRFC822(8000, 0), MaxMIMEDepth + 2, MaxMIMEDepth + 2},
		{"multipart 3000 deep", nestedMultipart(3000), MaxMIMEDepth + 1, 2 * (MaxMIMEDepth + 2)},
		{"30000 parts", wide(30000), 1, MaxMIMEParts + 1},
	} {
		root := parseMIME(tt.buf)
		bs := root.bodyStructure(tt.buf)
		depth, parts := 0, 0
		var opaque *imap.BodyStructureSinglePart
		walkParts(bs, nil, func(path []int, p imap.BodyStructure) {
			depth, parts = max(depth, len(path)), parts+1
			if sp, ok := p.(*imap.BodyStructureSinglePart); ok && sp.Type == "application" {
				opaque = sp
			}
		})
		if depth > tt.wantDepth || parts > tt.wantParts {
			t.Errorf("%s: BODYSTRUCTURE %d deep, %d parts; want at most %d and %d", tt.name, depth, parts, tt.wantDepth, tt.wantParts)
		}
		if opaque == nil || opaque.Subtype != "octet-stream" || opaque.Size == 0 {
			t.Errorf("%s: no opaque application/octet-stream leaf past the bound: %+v", tt.name, opaque)
		}
		if root.end != len(tt.buf) {
			t.Errorf("%s: the walk ends at %d of %d bytes", tt.name, root.end, len(tt.buf))
		}
	}
}

// FuzzMIMEWalk checks the walk on any bytes: it reads to the end, every
// part lies inside its parent and in order, the BODYSTRUCTURE stays within
// the bounds, and BODY[part] of every part is the part's own bytes, a
// piece of the message.
func FuzzMIMEWalk(f *testing.F) {
	for _, b := range mimeCorpus(f) {
		f.Add(b)
	}
	f.Add(nestedRFC822(120, 3))
	f.Add(nestedMultipart(120))
	f.Fuzz(func(t *testing.T, buf []byte) {
		root := parseMIME(buf)
		if root.end != len(buf) || root.hdrStart != 0 {
			t.Fatalf("the walk covers [%d,%d) of %d bytes", root.hdrStart, root.end, len(buf))
		}
		checkPart(t, root, 0, len(buf), 0)
		bs := root.bodyStructure(buf)
		walkParts(bs, nil, func(path []int, _ imap.BodyStructure) {
			if len(path) > MaxMIMEDepth+3 {
				t.Fatalf("BODYSTRUCTURE path %v deeper than the bound", path)
			}
			got := bodySection(buf, root, &imap.FetchItemBodySection{Part: path})
			if !bytes.Contains(buf, got) {
				t.Fatalf("BODY[%v] = %q is not a piece of the message", path, got)
			}
		})
	})
}

func checkPart(t *testing.T, p *mimePart, lo, hi, depth int) {
	t.Helper()
	if !(lo <= p.hdrStart && p.hdrStart <= p.bodyStart && p.bodyStart <= p.end && p.end <= hi) {
		t.Fatalf("part [%d %d %d] outside [%d,%d)", p.hdrStart, p.bodyStart, p.end, lo, hi)
	}
	if depth > MaxMIMEDepth+1 || p.numLines() < 0 {
		t.Fatalf("part at depth %d, %d lines", depth, p.numLines())
	}
	next := p.bodyStart
	for _, c := range p.children {
		checkPart(t, c, next, p.end, depth+1)
		next = c.end
	}
	if p.inner != nil {
		checkPart(t, p.inner, p.bodyStart, p.end, depth+1)
	}
}
