package devmail

import (
	"context"
	"log/slog"
	"time"
)

// snapshotDelay gathers a burst of changes into one snapshot.
const snapshotDelay = 250 * time.Millisecond

// persister keeps state.json in step with the memory store: a snapshot
// reads every folder's UIDVALIDITY and UIDNEXT and every message's UID,
// file, flags and internal date from it directly.
type persister struct {
	acct  *account
	store *store
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
	if err := ctx.Err(); err != nil {
		return err
	}
	p.acct.mu.Lock()
	defer p.acct.mu.Unlock()
	folders, lastUIDValidity := p.acct.folderStates()
	return p.store.commit(folders, lastUIDValidity)
}
