package main

import (
	"context"
	"io"
	"sync/atomic"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
)

// sinkOptions run an SMTP server that accepts and discards every message:
// the submission server of a benchmark of the send tools.
type sinkOptions struct {
	serverOptions
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
	o.flags(fs)
	if err := parseAll(fs, args); err != nil {
		return nil, err
	}
	return o, o.check()
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
	ln, err := o.listen()
	if err != nil {
		return nil, err
	}
	b := &sinkBackend{}
	srv := gosmtp.NewServer(b)
	srv.Domain, srv.AllowInsecureAuth = "localhost", true
	srv.MaxMessageBytes, srv.MaxRecipients = 1<<30, 1000
	srv.ReadTimeout, srv.WriteTimeout = time.Minute, time.Minute
	err = o.serveFor(ctx, func() error { return srv.Serve(ln) }, srv.Close, gosmtp.ErrServerClosed)
	return &SinkReport{Messages: b.messages.Load(), Bytes: b.bytes.Load()}, err
}
