package inbox

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/email-mcp/email-mcp/imap"
)

// knownTTL is how long a positive existence answer is trusted without
// asking the mailbox again. Only positive answers are remembered: an inbox
// created on another replica is seen at once; one deleted on another
// replica may still be taken for existing here for up to knownTTL.
const knownTTL = 30 * time.Second

// knownInboxes remembers addresses whose marker was seen (or written)
// recently, so that a burst of waits on one inbox asks the mailbox once.
// The zero value is ready.
type knownInboxes struct {
	mu sync.Mutex
	m  map[string]time.Time // address → when it was last confirmed
}

func (k *knownInboxes) has(addr string, now time.Time) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	at, ok := k.m[addr]
	return ok && now.Sub(at) < knownTTL
}

func (k *knownInboxes) add(addr string, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil || len(k.m) >= maxRemembered {
		k.m = map[string]time.Time{}
	}
	k.m[addr] = now
}

func (k *knownInboxes) forget(addr string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, addr)
}

// maxMarkerPages bounds the marker search of exists: pages of
// markerPageSize markers whose To merely contains the address.
const (
	maxMarkerPages = 20
	markerPageSize = 50
)

// exists reports whether the inbox addr has its marker in MarkerFolder: the
// mailbox is the record, so every replica over one account agrees. SEARCH
// TO matches substrings (x-1@d is in ax-1@d), so each hit's To is compared
// whole.
func (ib *Inboxes) exists(ctx context.Context, addr string) (bool, error) {
	if ib.known.has(addr, time.Now()) {
		return true, nil
	}
	req := imap.PageRequest{Limit: markerPageSize}
	for range maxMarkerPages {
		res, err := ib.store.Search(ctx, MarkerFolder, imap.SearchCriteria{To: addr}, req)
		if isMissing(err) {
			return false, nil // no inbox created yet
		}
		if err != nil {
			return false, inFolder(err, MarkerFolder)
		}
		if hasMarker(res, addr) {
			ib.known.add(addr, time.Now())
			return true, nil
		}
		if res.NextBeforeUID == 0 {
			return false, nil
		}
		req.BeforeUID, req.UIDValidity = res.NextBeforeUID, res.UIDValidity
	}
	return false, nil
}

// hasMarker reports whether a page of markers has one To addr, whole.
func hasMarker(res *imap.SearchResult, addr string) bool {
	for _, m := range res.Messages {
		for _, to := range m.To {
			if strings.EqualFold(to.Email, addr) {
				return true
			}
		}
	}
	return false
}
