package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// readPrefix is what read_email fetches of a message with its structure
// (tools/read_email.go readPrefix): BODY.PEEK[]<0.1048576>.
const readPrefix = 1 << 20

// summaryFetch mirrors imap/summary.go: what search_emails fetches for each
// message of a page.
var summaryFetch = &goimap.FetchOptions{
	UID: true, Flags: true, Envelope: true, RFC822Size: true, InternalDate: true,
	BodyStructure: &goimap.FetchItemBodyStructure{Extended: true},
}

// readFetch mirrors imap/fetch.go messageFetch(whole, true) for read_email.
var readFetch = &goimap.FetchOptions{
	UID: true, Flags: true, InternalDate: true, RFC822Size: true,
	BodySection:   []*goimap.FetchItemBodySection{{Peek: true, Partial: &goimap.SectionPartial{Size: readPrefix}}},
	BodyStructure: &goimap.FetchItemBodyStructure{Extended: true},
}

// rawConn is one logged-in connection of the bare client.
type rawConn struct {
	nc       net.Conn
	ic       *imapclient.Client
	selected bool // the folder is EXAMINEd
}

// rawPool hands out at most Conns connections to the workers; a connection
// that failed is closed and dialled again on its next use.
type rawPool struct {
	o    *rawOptions
	tls  *tls.Config
	free chan *rawConn // nil entries stand for connections to dial
}

// newRawPool dials every connection up front (not measured).
func newRawPool(ctx context.Context, o *rawOptions) (*rawPool, error) {
	p := &rawPool{o: o, free: make(chan *rawConn, o.Conns)}
	if o.TLS {
		cfg, err := tlsConfig(o.Addr, o.CAFile)
		if err != nil {
			return nil, err
		}
		p.tls = cfg
	}
	for range o.Conns {
		rc, err := p.dial(ctx)
		if err != nil {
			p.close()
			return nil, err
		}
		p.free <- rc
	}
	return p, nil
}

// tlsConfig trusts the system roots plus caFile, for the host of addr.
func tlsConfig(addr, caFile string) (*tls.Config, error) {
	host, _, _ := net.SplitHostPort(addr)
	cfg := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	if caFile == "" {
		return cfg, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("-ca-file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("-ca-file %s: no PEM certificate", caFile)
	}
	cfg.RootCAs = pool
	return cfg, nil
}

// dial opens and logs in one connection.
func (p *rawPool) dial(ctx context.Context) (*rawConn, error) {
	return p.dialWith(ctx, nil)
}

// dialWith opens and logs in one connection whose unsolicited responses
// go to h (nil: dropped).
func (p *rawPool) dialWith(ctx context.Context, h *imapclient.UnilateralDataHandler) (*rawConn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second}
	var nc net.Conn
	var err error
	if p.tls != nil {
		nc, err = (&tls.Dialer{NetDialer: d, Config: p.tls}).DialContext(ctx, "tcp", p.o.Addr)
	} else {
		nc, err = d.DialContext(ctx, "tcp", p.o.Addr)
	}
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", p.o.Addr, err)
	}
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	ic := imapclient.New(nc, &imapclient.Options{WordDecoder: wordDecoder(), UnilateralDataHandler: h})
	if err := ic.Login(p.o.User, p.o.Pass).Wait(); err != nil {
		_ = ic.Close()
		return nil, fmt.Errorf("login: %w", err)
	}
	_ = nc.SetDeadline(time.Time{})
	return &rawConn{nc: nc, ic: ic}, nil
}

// with runs fn on a free connection under the operation timeout.
func (p *rawPool) with(ctx context.Context, fn func(rc *rawConn) error) error {
	var rc *rawConn
	select {
	case rc = <-p.free:
	case <-ctx.Done():
		return ctx.Err()
	}
	var err error
	if rc == nil {
		if rc, err = p.dial(ctx); err != nil {
			p.free <- nil
			return err
		}
	}
	_ = rc.nc.SetDeadline(time.Now().Add(p.o.Timeout))
	err = fn(rc)
	if err != nil {
		_ = rc.ic.Close()
		rc = nil
	} else {
		_ = rc.nc.SetDeadline(time.Time{})
	}
	p.free <- rc
	return err
}

// close logs out every idle connection.
func (p *rawPool) close() {
	for {
		select {
		case rc := <-p.free:
			if rc != nil {
				_ = rc.nc.SetDeadline(time.Now().Add(time.Second))
				_ = rc.ic.Logout().Wait()
				_ = rc.ic.Close()
			}
		default:
			return
		}
	}
}

// examine selects the folder read-only once per connection, as the adapter
// keeps its selection between operations.
func (rc *rawConn) examine(folder string) error {
	if rc.selected {
		return nil
	}
	if _, err := rc.ic.Select(folder, &goimap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		return fmt.Errorf("examine: %w", err)
	}
	rc.selected = true
	return nil
}

// search is what search_emails does on the wire with no filter: UID SEARCH
// ALL (RETURN (ALL) with ESEARCH), newest first, then one UID FETCH of the
// page (imap/search.go).
func (rc *rawConn) search(folder string, limit int) (int, error) {
	if err := rc.examine(folder); err != nil {
		return 0, err
	}
	var opts *goimap.SearchOptions
	if rc.ic.Caps().Has(goimap.CapESearch) {
		opts = &goimap.SearchOptions{ReturnAll: true}
	}
	data, err := rc.ic.UIDSearch(&goimap.SearchCriteria{}, opts).Wait()
	if err != nil {
		return 0, fmt.Errorf("uid search: %w", err)
	}
	uids := data.AllUIDs()
	slices.Sort(uids)
	slices.Reverse(uids)
	uids = uids[:min(limit, len(uids))]
	if len(uids) == 0 {
		return 0, nil
	}
	var set goimap.UIDSet
	for _, u := range uids {
		set.AddNum(u)
	}
	bufs, err := rc.ic.Fetch(set, summaryFetch).Collect()
	if err != nil {
		return 0, fmt.Errorf("uid fetch: %w", err)
	}
	return len(bufs), nil
}

// read is what read_email does on the wire for a message under 1 MiB: one
// UID FETCH of UID FLAGS INTERNALDATE RFC822.SIZE BODYSTRUCTURE
// BODY.PEEK[]<0.1048576> (imap/fetch.go).
func (rc *rawConn) read(folder string, uid uint32) error {
	if err := rc.examine(folder); err != nil {
		return err
	}
	bufs, err := rc.ic.Fetch(goimap.UIDSetNum(goimap.UID(uid)), readFetch).Collect()
	if err != nil {
		return fmt.Errorf("uid fetch: %w", err)
	}
	if len(bufs) == 0 || bufs[0].FindBodySection(readFetch.BodySection[0]) == nil {
		return errNoMessage
	}
	return nil
}

// errNoMessage: the server answered OK with nothing.
var errNoMessage = errors.New("no such message")

// rawKind is the kind of a raw operation's error.
func rawKind(err error) string {
	var ie *goimap.Error
	switch {
	case err == nil:
		return ""
	case errors.Is(err, errNoMessage):
		return "imap_not_found"
	case errors.As(err, &ie):
		return "imap_" + string(ie.Type)
	}
	return errKind(err)
}

// rawOp returns the op that runs o's operation on a connection of p.
func rawOp(p *rawPool, o *rawOptions) op {
	return func(ctx context.Context, _ int) string {
		return rawKind(p.with(ctx, func(rc *rawConn) error {
			if o.Op == "read" {
				return rc.read(o.Folder, uint32(o.UID))
			}
			_, err := rc.search(o.Folder, o.Limit)
			return err
		}))
	}
}

// runRaw runs o's operation as a load and summarises it.
func runRaw(ctx context.Context, o *rawOptions) (Summary, error) {
	p, err := newRawPool(ctx, o)
	if err != nil {
		return Summary{}, err
	}
	defer p.close()
	s := runPlan(ctx, o.Plan, 0, rawOp(p, o))
	s.Mode, s.Op, s.Conns = "raw", o.Op, o.Conns
	return s, nil
}
