package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
)

// sinkOptions run an SMTP server that accepts and discards every message:
// the submission server of a benchmark of the send tools.
type sinkOptions struct {
	Addr     string
	AddrFile string // the address it listens on is written here
	Max      time.Duration
}

// SinkReport is what `sink` prints when it stops.
type SinkReport struct {
	Messages int64 `json:"messages"`
	Bytes    int64 `json:"bytes"`
}

// parseSink parses the flags of `sink`.
func parseSink(args []string, stderr io.Writer) (*sinkOptions, error) {
	o := &sinkOptions{}
	fs := newFlagSet("sink", stderr)
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:0", "listen address (loopback)")
	fs.StringVar(&o.AddrFile, "addr-file", "", "write the address listened on to this file")
	fs.DurationVar(&o.Max, "d", 30*time.Minute, "stop after this long at most")
	if err := parseAll(fs, args); err != nil {
		return nil, err
	}
	if o.Max <= 0 || o.Max > 24*time.Hour {
		return nil, fmt.Errorf("-d %v: want up to 24h", o.Max)
	}
	return o, checkAddr("addr", o.Addr, false)
}

// sinkBackend counts what it discards.
type sinkBackend struct {
	messages, bytes atomic.Int64
}

func (b *sinkBackend) NewSession(*gosmtp.Conn) (gosmtp.Session, error) {
	return &sinkSession{b: b}, nil
}

// sinkSession accepts any login, sender and recipient.
type sinkSession struct{ b *sinkBackend }

func (s *sinkSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *sinkSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(string, string, string) error { return nil }), nil
}
func (s *sinkSession) Mail(string, *gosmtp.MailOptions) error { return nil }
func (s *sinkSession) Rcpt(string, *gosmtp.RcptOptions) error { return nil }
func (s *sinkSession) Reset()                                 {}
func (s *sinkSession) Logout() error                          { return nil }

func (s *sinkSession) Data(r io.Reader) error {
	n, err := io.Copy(io.Discard, r)
	s.b.bytes.Add(n)
	if err == nil {
		s.b.messages.Add(1)
	}
	return err
}

// runSink serves until ctx ends or o.Max passes.
func runSink(ctx context.Context, o *sinkOptions) (*SinkReport, error) {
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, err
	}
	if o.AddrFile != "" {
		if err := os.WriteFile(o.AddrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			_ = ln.Close()
			return nil, err
		}
	}
	b := &sinkBackend{}
	srv := gosmtp.NewServer(b)
	srv.Domain, srv.AllowInsecureAuth = "localhost", true
	srv.MaxMessageBytes, srv.MaxRecipients = 1<<30, 1000
	srv.ReadTimeout, srv.WriteTimeout = time.Minute, time.Minute
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	ctx, cancel := context.WithTimeout(ctx, o.Max)
	defer cancel()
	select {
	case err = <-errc:
	case <-ctx.Done():
		_ = srv.Close()
		err = <-errc
	}
	if errors.Is(err, gosmtp.ErrServerClosed) {
		err = nil
	}
	return &SinkReport{Messages: b.messages.Load(), Bytes: b.bytes.Load()}, err
}
