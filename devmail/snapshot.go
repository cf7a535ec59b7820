package devmail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
)

const (
	// snapshotDelay gathers a burst of changes into one snapshot.
	snapshotDelay = 250 * time.Millisecond
	// snapshotTimeout bounds one snapshot (it reads every folder).
	snapshotTimeout = 2 * time.Minute
)

// persister keeps state.json in step with imapmemserver. imapmemserver
// hides its messages, so a snapshot reads them the way any client would:
// over an in-memory IMAP connection (UID, FLAGS and INTERNALDATE of every
// message, and the body only of messages it does not know yet, i.e. copies
// and moves, to learn their file).
type persister struct {
	acct  *account
	store *store
	pipe  *pipeListener
	log   *slog.Logger

	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	started bool // set by start, read by stopLoop (Start happens before Close)
}

func newPersister(acct *account, st *store, log *slog.Logger) *persister {
	return &persister{
		acct:  acct,
		store: st,
		pipe:  newPipeListener(),
		log:   log,
		kick:  make(chan struct{}, 1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
}

// markDirty asks for a snapshot soon; it never blocks.
func (p *persister) markDirty() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// start runs the snapshot loop.
func (p *persister) start() {
	p.started = true
	go p.run()
}

// run takes a snapshot shortly after each change until stopLoop.
func (p *persister) run() {
	defer close(p.done)
	for {
		select {
		case <-p.stop:
			return
		case <-p.kick:
		}
		t := time.NewTimer(snapshotDelay)
		select {
		case <-p.stop:
			t.Stop()
			return
		case <-t.C:
		}
		if err := p.snapshot(context.Background()); err != nil {
			p.log.Warn("devmail: snapshot failed", "err", err)
		}
	}
}

// stopLoop ends run and waits for it (Close then takes a last snapshot).
func (p *persister) stopLoop() {
	close(p.stop)
	if p.started {
		<-p.done
	}
}

// snapshot writes the whole mailbox state to disk. It holds the account's
// mutation lock exclusively, so it sees one consistent state.
func (p *persister) snapshot(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	p.acct.mu.Lock()
	defer p.acct.mu.Unlock()
	folders, lastUIDValidity := p.acct.folderStates()
	c, err := p.connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	present := make(map[msgKey]bool)
	for i := range folders {
		msgs, err := p.readFolder(c, folders[i].Name, present)
		if err != nil {
			return fmt.Errorf("snapshot %q: %w", folders[i].Name, err)
		}
		folders[i].Messages = msgs
	}
	_ = c.Logout().Wait()
	return p.store.commit(folders, lastUIDValidity, present)
}

// connect logs in over a new in-memory connection, bounded by ctx.
func (p *persister) connect(ctx context.Context) (*imapclient.Client, error) {
	conn, err := p.pipe.dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("snapshot connect: %w", err)
	}
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	c := imapclient.New(conn, nil)
	if err := c.Login(p.acct.username, p.acct.password).Wait(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("snapshot login: %w", err)
	}
	return c, nil
}

// readFolder lists a folder's messages in UID order.
func (p *persister) readFolder(c *imapclient.Client, name string, present map[msgKey]bool) ([]messageState, error) {
	sel, err := c.Select(name, &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		return nil, err
	}
	msgs := []messageState{}
	if sel.NumMessages == 0 {
		return msgs, nil
	}
	bufs, err := c.Fetch(imap.UIDSet{{Start: 1, Stop: 0}}, &imap.FetchOptions{UID: true, Flags: true, InternalDate: true}).Collect()
	if err != nil {
		return nil, err
	}
	if err := p.learnUnknown(c, sel.UIDValidity, bufs); err != nil {
		return nil, err
	}
	for _, b := range bufs {
		key := msgKey{sel.UIDValidity, b.UID}
		ref, ok := p.store.lookup(key)
		if !ok {
			return nil, fmt.Errorf("%w: no file for UID %d", ErrStore, b.UID)
		}
		present[key] = true
		flags := slices.DeleteFunc(flagStrings(b.Flags), isRecent)
		msgs = append(msgs, messageState{File: ref.file, Flags: flags, Date: ref.date})
	}
	return msgs, nil
}

// learnUnknown finds the file of each message the store has no reference
// for: copies and moves get new UIDs. FETCH BODY[] is not byte-exact
// (imapserver re-writes the header block), so a message is matched against
// the remembered messages of the same size and internal date by comparing
// what imapserver would serve for them; only a message that matches none is
// written as a new file.
func (p *persister) learnUnknown(c *imapclient.Client, uidValidity uint32, bufs []*imapclient.FetchMessageBuffer) error {
	var unknown []imap.UID
	for _, b := range bufs {
		if _, ok := p.store.lookup(msgKey{uidValidity, b.UID}); !ok {
			unknown = append(unknown, b.UID)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	opts := &imap.FetchOptions{
		UID: true, InternalDate: true, RFC822Size: true,
		BodySection: []*imap.FetchItemBodySection{{Peek: true}},
	}
	bodies, err := c.Fetch(imap.UIDSetNum(unknown...), opts).Collect()
	if err != nil {
		return err
	}
	for _, b := range bodies {
		if len(b.BodySection) == 0 {
			return errors.New("server sent no body")
		}
		ref, err := p.identify(b.BodySection[0].Bytes, b.RFC822Size, b.InternalDate)
		if err != nil {
			return err
		}
		p.store.remember(msgKey{uidValidity, b.UID}, ref)
	}
	return nil
}

// identify returns the stored file a fetched message came from, or stores
// the fetched bytes as a new file.
func (p *persister) identify(served []byte, size int64, date time.Time) (msgRef, error) {
	for _, ref := range p.store.candidates(size, date) {
		raw, err := p.store.readMessage(ref.file)
		if err != nil {
			continue
		}
		if bytes.Equal(imapserver.ExtractBodySection(bytes.NewReader(raw), &imap.FetchItemBodySection{}), served) {
			return ref, nil
		}
	}
	file, err := p.store.writeMessage(served)
	if err != nil {
		return msgRef{}, err
	}
	return msgRef{file: file, date: date, size: int64(len(served))}, nil
}
