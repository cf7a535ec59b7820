package devmail

import (
	"cmp"
	"path/filepath"
	"slices"

	"github.com/emersion/go-imap/v2"
)

// replay applies journal entries to the state read at start.
type replay struct {
	st *stateFile
	// dropped holds the files of messages that a replayed entry expunged
	// or whose folder it deleted: mail known to be gone, not lost.
	dropped map[string]bool
}

func newReplay(st *stateFile) *replay {
	return &replay{st: st, dropped: make(map[string]bool)}
}

// apply replays one journal entry onto the state. A folder is found by its
// UIDVALIDITY, which a rename does not change and no other folder shares;
// an entry for a folder that is gone changes nothing, so the message file
// it names is placed later as an orphan (in Recovered).
func (r *replay) apply(e journalEntry) {
	st := r.st
	st.UIDValidity = max(st.UIDValidity, e.UIDValidity, e.SourceUIDValidity)
	uidValidity := e.UIDValidity
	if e.legacy {
		uidValidity = 0
	}
	switch e.Op {
	case opCreate:
		if folderIndex(st, e.Folder) < 0 {
			st.Folders = append(st.Folders, folderState{Name: e.Folder, SpecialUse: e.SpecialUse, UIDValidity: uidValidity, UIDNext: 1})
		}
	case opDelete:
		if i := folderIndex(st, e.Folder); i >= 0 {
			r.drop(st.Folders[i].Messages)
			st.Folders = slices.Delete(st.Folders, i, i+1)
		}
	case opRename:
		if i := folderIndex(st, e.Folder); i >= 0 && folderIndex(st, e.NewName) < 0 {
			st.Folders[i].Name = e.NewName
		}
	case opAppend:
		i := r.find(e.Folder, uidValidity)
		if i < 0 && uidValidity == 0 {
			st.Folders = append(st.Folders, folderState{Name: e.Folder})
			i = len(st.Folders) - 1
		}
		if i >= 0 {
			r.add(i, messageState{UID: e.UID, File: e.File, Flags: e.Flags, Date: e.Date})
		}
	case opChange:
		if i := r.find(e.Folder, uidValidity); i >= 0 {
			for _, m := range e.Added {
				r.add(i, m)
			}
		}
		if i := r.find(e.Source, e.SourceUIDValidity); i >= 0 && e.SourceUIDValidity != 0 {
			f := &st.Folders[i]
			f.Messages = slices.DeleteFunc(f.Messages, func(m messageState) bool {
				gone := m.UID != 0 && slices.Contains(e.Expunged, m.UID)
				moved := slices.ContainsFunc(e.Added, func(a messageState) bool { return a.File == m.File })
				if gone && !moved {
					r.dropped[m.File] = true
				}
				return gone
			})
		}
	}
}

func (r *replay) find(name string, uidValidity uint32) int {
	if uidValidity == 0 {
		return folderIndex(r.st, name)
	}
	return slices.IndexFunc(r.st.Folders, func(f folderState) bool { return f.UIDValidity == uidValidity })
}

func (r *replay) add(i int, m messageState) {
	f := &r.st.Folders[i]
	f.Messages = append(f.Messages, m)
	if m.UID != 0 {
		f.UIDNext = max(f.UIDNext, m.UID+1)
	}
}

func (r *replay) drop(msgs []messageState) {
	for _, m := range msgs {
		r.dropped[m.File] = true
	}
}

// finish puts every folder's messages in UID order. After a lost state no
// UID can be trusted: every folder gets a new UIDVALIDITY. After damaged
// journal lines (their lengths in damaged), which may have taken UIDs and
// UIDVALIDITY values that nothing records now, every UIDNEXT and the
// UIDVALIDITY counter move past anything those lines can have used, so no
// UID is given twice under one UIDVALIDITY.
func (r *replay) finish(damaged []int, lost bool) {
	st := r.st
	var uidRoom imap.UID
	for _, n := range damaged {
		// Each message a line records takes more than minEntryBytes.
		uidRoom += imap.UID(n/minEntryBytes + 1)
	}
	st.UIDValidity += uint32(len(damaged))
	for i := range st.Folders {
		f := &st.Folders[i]
		if lost {
			f.UIDValidity, f.UIDNext = 0, 0
			for j := range f.Messages {
				f.Messages[j].UID = 0
			}
			continue
		}
		slices.SortStableFunc(f.Messages, func(a, b messageState) int { return cmp.Compare(uidKey(a.UID), uidKey(b.UID)) })
		f.Messages = slices.CompactFunc(f.Messages, func(a, b messageState) bool { return a.UID != 0 && a.UID == b.UID })
		if n := len(f.Messages); n > 0 && f.Messages[n-1].UID != 0 {
			f.UIDNext = max(f.UIDNext, f.Messages[n-1].UID+1)
		}
		if f.UIDValidity != 0 {
			f.UIDNext += uidRoom
		}
	}
}

// minEntryBytes is less than any journal record of one message takes.
const minEntryBytes = 20

// uidKey sorts UID 0 (to be numbered at restore) after every real UID.
func uidKey(uid imap.UID) uint64 {
	if uid == 0 {
		return 1 << 32
	}
	return uint64(uid)
}

func folderIndex(st *stateFile, name string) int {
	return slices.IndexFunc(st.Folders, func(f folderState) bool { return f.Name == name })
}

// placeOrphans looks at the message files the state does not name. Those
// that are known to be gone (expunged by a replayed entry, or listed by the
// state as being removed and not written since) become known, so the next
// snapshot removes them. Every other intact one is the only record of a
// message: it goes into the Recovered folder. A file that does not match
// its name is left alone.
func (s *store) placeOrphans(st *stateFile, dropped map[string]bool, lost bool) {
	referenced := make(map[string]bool)
	for _, f := range st.Folders {
		for _, m := range f.Messages {
			referenced[m.File] = true
		}
	}
	names, err := filepath.Glob(filepath.Join(s.dir, messagesDir, "*"+messageExt))
	if err != nil {
		return
	}
	var rescued []messageState
	for _, path := range names {
		file := filepath.Base(path)
		file = file[:len(file)-len(messageExt)]
		if referenced[file] {
			continue
		}
		if _, err := s.readMessage(file); err != nil {
			s.log.Warn("devmail: skipping unreadable message file", "file", path, "err", err)
			continue
		}
		if dropped[file] || (!lost && slices.Contains(st.Removing, file) && modTime(path).Before(st.WrittenAt)) {
			continue
		}
		rescued = append(rescued, messageState{File: file, Date: modTime(path)})
	}
	if len(rescued) == 0 {
		return
	}
	s.log.Warn("devmail: message files that no state places go to the Recovered folder", "messages", len(rescued))
	i := folderIndex(st, recoveredFolder)
	if i < 0 {
		st.Folders = append(st.Folders, folderState{Name: recoveredFolder, Subscribed: true})
		i = len(st.Folders) - 1
	}
	st.Folders[i].Messages = append(st.Folders[i].Messages, rescued...)
}
