package imap

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Ref names a message of a folder: its UID and, for an id
// (msg_<uidvalidity>_<uid>), the UIDVALIDITY it was issued under; 0 for a
// plain UID, which is not checked.
type Ref struct {
	UID, Validity uint32
}

// ValidityReader is what RefUIDs needs of a mailbox (Client has it).
type ValidityReader interface {
	UIDValidity(ctx context.Context, folder string) (uint32, error)
}

var _ ValidityReader = (*Client)(nil)

// RefUIDs checks refs against folder's UIDVALIDITY, which costs a round
// trip only when one of them carries a validity, and returns their UIDs
// once each, in the order given. A ref of another UIDVALIDITY is
// ErrUIDValidityChanged.
func RefUIDs(ctx context.Context, r ValidityReader, folder string, refs []Ref) ([]uint32, error) {
	if slices.ContainsFunc(refs, func(r Ref) bool { return r.Validity != 0 }) {
		current, err := r.UIDValidity(ctx, folder)
		if err != nil {
			return nil, err
		}
		for _, ref := range refs {
			if ref.Validity != 0 && ref.Validity != current {
				return nil, fmt.Errorf("message %d of %q: %w", ref.UID, folder, ErrUIDValidityChanged)
			}
		}
	}
	uids := make([]uint32, 0, len(refs))
	for _, ref := range refs {
		if !slices.Contains(uids, ref.UID) {
			uids = append(uids, ref.UID)
		}
	}
	return uids, nil
}

// ID is the ref as an id, msg_<uidvalidity>_<uid>: what every tool returns
// as a message's id, valid while the folder's UIDVALIDITY is.
func (r Ref) ID() string { return fmt.Sprintf("msg_%d_%d", r.Validity, r.UID) }

// ParseID reads an id msg_<uidvalidity>_<uid> (Ref.ID) with a UIDVALIDITY
// other than 0; ok is false for anything else. A UID of 0 is the caller's
// to refuse (inbox takes msg_<v>_0 as "before any message").
func ParseID(s string) (r Ref, ok bool) {
	rest, found := strings.CutPrefix(s, "msg_")
	vs, us, found2 := strings.Cut(rest, "_")
	if !found || !found2 {
		return Ref{}, false // no parse of what cannot be an id: a failed ParseUint allocates its error
	}
	v, err1 := strconv.ParseUint(vs, 10, 32)
	u, err2 := strconv.ParseUint(us, 10, 32)
	if err1 != nil || err2 != nil || v == 0 {
		return Ref{}, false
	}
	return Ref{UID: uint32(u), Validity: uint32(v)}, true
}
