package imap

import (
	"encoding/base64"
	"fmt"
	"io"
	"mime/quotedprintable"
)

// DecodeStream runs stream with a writer that undoes the transfer encoding
// ("base64", "quoted-printable"; anything else passes as is) on the fly and
// writes the decoded bytes to dst: a part streamed through it (StreamPart)
// is never held whole in memory. It is the decoder of downloads, and the
// one that counts the exact attachment sizes of ReadMessage, so that the
// two agree.
func DecodeStream(dst io.Writer, encoding string, stream func(io.Writer) error) error {
	var decode func(io.Reader) io.Reader
	switch encoding {
	case "base64":
		decode = func(r io.Reader) io.Reader { return base64.NewDecoder(base64.StdEncoding, &base64Filter{r: r}) }
	case "quoted-printable":
		decode = func(r io.Reader) io.Reader { return quotedprintable.NewReader(r) }
	default:
		return stream(dst)
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(dst, decode(pr))
		pr.CloseWithError(err) // a failed decode or write stops the stream
		done <- err
	}()
	serr := stream(pw)
	pw.CloseWithError(serr)
	derr := <-done
	if serr != nil {
		return serr
	}
	if derr != nil {
		return fmt.Errorf("decode %s: %w", encoding, derr)
	}
	return nil
}

// base64Filter drops everything that is not base64 alphabet (line breaks,
// stray spaces, garbage some mailers add), as mail readers do.
type base64Filter struct{ r io.Reader }

func (f *base64Filter) Read(p []byte) (int, error) {
	for {
		n, err := f.r.Read(p)
		k := 0
		for _, c := range p[:n] {
			if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' {
				p[k] = c
				k++
			}
		}
		if k > 0 || err != nil {
			return k, err
		}
	}
}
