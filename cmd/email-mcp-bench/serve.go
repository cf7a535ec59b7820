package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"time"
)

// serverOptions are what the modes that run a server (`sink`, `echo`)
// share: where to listen, where to say where, and for how long at most.
type serverOptions struct {
	Addr     string
	AddrFile string // the address listened on is written here
	Max      time.Duration
}

// flags registers -addr, -addr-file and -d on fs.
func (o *serverOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:0", "listen address (loopback)")
	fs.StringVar(&o.AddrFile, "addr-file", "", "write the address listened on to this file")
	fs.DurationVar(&o.Max, "d", 30*time.Minute, "stop after this long at most")
}

// check validates the parsed flags.
func (o *serverOptions) check() error {
	if o.Max <= 0 || o.Max > 24*time.Hour {
		return fmt.Errorf("-d %v: want up to 24h", o.Max)
	}
	return checkAddr("addr", o.Addr, false)
}

// listen listens on Addr and writes the address to AddrFile when set.
func (o *serverOptions) listen() (net.Listener, error) {
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
	return ln, nil
}

// serveFor runs serve until it returns, or until ctx ends or Max passes,
// when it calls stop and waits for serve. closed, the error serve returns
// once stopped, counts as success.
func (o *serverOptions) serveFor(ctx context.Context, serve, stop func() error, closed error) error {
	errc := make(chan error, 1)
	go func() { errc <- serve() }()
	ctx, cancel := context.WithTimeout(ctx, o.Max)
	defer cancel()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		_ = stop()
		err = <-errc
	}
	if errors.Is(err, closed) {
		return nil
	}
	return err
}
