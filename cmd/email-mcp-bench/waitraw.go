package main

import (
	"context"
	"fmt"
	"mime"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-message/charset"
)

// runWaitRaw measures the floor under wait_for_otp: a bare go-imap client
// idles on the folder, and each round delivers one mail and times the end
// of DATA to the untagged EXISTS that announces it.
func runWaitRaw(ctx context.Context, o *waitOptions) (*WaitReport, error) {
	name, addr, lmtp := o.delivery()
	d, err := dialDeliverer(ctx, addr, lmtp)
	if err != nil {
		return nil, err
	}
	defer d.close()
	exists := make(chan uint32, 64)
	ic, err := dialIdler(ctx, &o.raw, exists)
	if err != nil {
		return nil, err
	}
	defer func() { _ = ic.Close() }()
	sel, err := ic.Select(o.raw.Folder, &goimap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		return nil, fmt.Errorf("examine: %w", err)
	}
	idle, err := ic.Idle()
	if err != nil {
		return nil, fmt.Errorf("idle: %w", err)
	}
	defer func() { _ = idle.Close() }()
	rec, count := newRecorder(), sel.NumMessages
	var samples []float64
	start := time.Now()
	for r := 0; r < o.Rounds && ctx.Err() == nil; r++ {
		if err := d.send(o.Rcpt, otpMail(o.Rcpt, randomCode(), r)); err != nil {
			rec.add(0, "deliver")
			continue
		}
		sent := time.Now()
		var kind string
		count, kind = awaitExists(ctx, exists, count, o.WaitTimeout)
		lat := time.Since(sent)
		rec.add(lat, kind)
		if o.Rounds <= maxSamples {
			samples = append(samples, ms(lat))
		}
	}
	rep := &WaitReport{Summary: merge([]*recorder{rec}, time.Since(start)), Rounds: o.Rounds, Delivery: name, SamplesMS: samples}
	rep.Mode, rep.Op, rep.Concurrency = "wait-raw", "idle", 1
	return rep, nil
}

// dialIdler logs a bare client in with a handler that reports each EXISTS
// on exists (never blocking the client's reader).
func dialIdler(ctx context.Context, o *rawOptions, exists chan<- uint32) (*imapclient.Client, error) {
	p := &rawPool{o: o}
	if o.TLS {
		cfg, err := tlsConfig(o.Addr, o.CAFile)
		if err != nil {
			return nil, err
		}
		p.tls = cfg
	}
	rc, err := p.dialWith(ctx, &imapclient.UnilateralDataHandler{
		Mailbox: func(m *imapclient.UnilateralDataMailbox) {
			if m.NumMessages == nil {
				return
			}
			select {
			case exists <- *m.NumMessages:
			default:
			}
		},
	})
	if err != nil {
		return nil, err
	}
	return rc.ic, nil
}

// awaitExists waits until the folder has more than count messages and
// returns the new count and "" (or "timeout").
func awaitExists(ctx context.Context, exists <-chan uint32, count uint32, timeout time.Duration) (uint32, string) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case n := <-exists:
			if n > count {
				return n, ""
			}
		case <-t.C:
			return count, "timeout"
		case <-ctx.Done():
			return count, "canceled"
		}
	}
}

// wordDecoder decodes RFC 2047 words in every charset, as the adapter does.
func wordDecoder() *mime.WordDecoder {
	return &mime.WordDecoder{CharsetReader: charset.Reader}
}
