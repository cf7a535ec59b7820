package inbox

import (
	"slices"
	"sort"
	"sync"
	"time"
)

// unseen remembers moments at which the folder's UIDNEXT was asked for:
// a UIDNEXT asked at time asked was read by the server after it, so every
// message with a UID at or above the answer arrived after asked. It is the
// other side of arrivals (what had arrived by a moment): between the two,
// a wait without since knows which mail came after its call started (see
// fromStart). The zero value is ready; it keeps at most maxUnseen moments.
type unseen struct {
	mu   sync.Mutex
	list []notYet // by asked, next increasing: none says less than another
}

type notYet struct {
	asked          time.Time
	validity, next uint32
}

const maxUnseen = 256

// add records that no UID at or above next had arrived at asked.
func (u *unseen) add(asked time.Time, validity, next uint32) {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := notYet{asked: asked, validity: validity, next: next}
	i := sort.Search(len(u.list), func(i int) bool { return u.list[i].asked.After(asked) })
	// A later moment with no higher UIDNEXT says more than n.
	for _, r := range u.list[i:] {
		if r.validity == validity && r.next <= next {
			return
		}
	}
	// n says more than the earlier moments with no lower UIDNEXT: they go,
	// in place (every wait adds one moment; none allocates a new list).
	j := 0
	for _, r := range u.list[:i] {
		if r.validity != validity || r.next < next {
			u.list[j] = r
			j++
		}
	}
	u.list = slices.Insert(slices.Delete(u.list, j, i), j, n)
	if len(u.list) > maxUnseen {
		u.list = append(u.list[:0], u.list[len(u.list)-maxUnseen:]...)
	}
}

// from returns the lowest UIDNEXT asked for at or after t in validity:
// every UID at or above it arrived after t. 0: none known.
func (u *unseen) from(t time.Time, validity uint32) uint32 {
	u.mu.Lock()
	defer u.mu.Unlock()
	var next uint32
	for _, r := range u.list {
		if r.validity == validity && !r.asked.Before(t) && (next == 0 || r.next < next) {
			next = r.next
		}
	}
	return next
}
