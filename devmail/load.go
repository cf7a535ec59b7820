package devmail

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// readState reads state.json. A missing file is an empty state, unless
// message files are there (the state was lost: a first start writes one at
// once); one that does not parse is renamed aside (never deleted). Both are
// reported as recovered, so that their messages are collected into a
// "Recovered" folder instead of being taken for leftovers and deleted.
// A recovered state starts its UIDVALIDITY past any value the lost state
// can have handed out (recoveredUIDValidity).
func (s *store) readState() (*stateFile, bool, error) {
	path := filepath.Join(s.dir, stateName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		files, _ := filepath.Glob(filepath.Join(s.dir, messagesDir, "*"+messageExt))
		if len(files) == 0 {
			return &stateFile{Version: stateVersion}, false, nil
		}
		s.log.Warn("devmail: state file missing but message files present; they go to the Recovered folder",
			"file", path, "messages", len(files))
		return &stateFile{Version: stateVersion, UIDValidity: recoveredUIDValidity(nil)}, true, nil
	} else if err != nil {
		return nil, false, storeError("read state", path, err)
	}
	var st stateFile
	if err := json.Unmarshal(data, &st); err == nil && st.Version == stateVersion {
		return &st, false, nil
	}
	aside := fmt.Sprintf("%s.corrupt-%d", path, time.Now().Unix())
	s.log.Warn("devmail: state file unreadable, kept aside; messages go to the Recovered folder",
		"file", path, "kept_as", aside)
	if err := os.Rename(path, aside); err != nil {
		return nil, false, storeError("keep unreadable state aside", path, err)
	}
	return &stateFile{Version: stateVersion, UIDValidity: recoveredUIDValidity(data)}, true, nil
}

// uidValidityField finds the stored UIDVALIDITY in a state file that does
// not parse as a whole.
var uidValidityField = regexp.MustCompile(`"uid_validity"\s*:\s*([0-9]{1,10})`)

// recoveredUIDValidity is where the UIDVALIDITY counter starts after the
// state was lost: past the value the damaged file still shows, with room for
// the folders created since it was written; without one, at the highest
// value a start skips to (maxUIDValiditySkip), far past what a data dir
// reaches in use. A UID is then never given twice under one UIDVALIDITY.
func recoveredUIDValidity(damaged []byte) uint32 {
	const room = 1 << 16
	if m := uidValidityField.FindSubmatch(damaged); m != nil {
		if v, err := strconv.ParseUint(string(m[1]), 10, 32); err == nil && v < maxUIDValiditySkip-room {
			return uint32(v) + room
		}
	}
	return maxUIDValiditySkip
}

// readJournal reads journal.jsonl; a line that does not parse (a write cut
// short by a crash) is skipped with a warning.
func (s *store) readJournal() ([]journalEntry, error) {
	path := filepath.Join(s.dir, journalName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, storeError("read journal", path, err)
	}
	var out []journalEntry
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e journalEntry
		if err := json.Unmarshal(line, &e); err != nil || e.Seq == 0 {
			s.log.Warn("devmail: skipping unreadable journal line", "file", path, "line", i+1)
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// applyEntry replays one journal entry onto the state.
func applyEntry(st *stateFile, e journalEntry) {
	st.UIDValidity = max(st.UIDValidity, e.UIDValidity)
	i := folderIndex(st, e.Folder)
	switch e.Op {
	case opCreate:
		if i < 0 {
			st.Folders = append(st.Folders, folderState{Name: e.Folder, SpecialUse: e.SpecialUse})
		}
	case opDelete:
		if i >= 0 {
			st.Folders = append(st.Folders[:i], st.Folders[i+1:]...)
		}
	case opRename:
		if i >= 0 && folderIndex(st, e.NewName) < 0 {
			st.Folders[i].Name = e.NewName
		}
	case opAppend:
		if i < 0 {
			st.Folders = append(st.Folders, folderState{Name: e.Folder})
			i = len(st.Folders) - 1
		}
		st.Folders[i].Messages = append(st.Folders[i].Messages, messageState{File: e.File, Flags: e.Flags, Date: e.Date})
	}
}

func folderIndex(st *stateFile, name string) int {
	for i, f := range st.Folders {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// checkOrphans looks at message files the state does not name. Normally
// they are leftovers of expunged mail: verified ones become known, so the
// next snapshot removes them. After a state file was lost they are the only
// copy of the mail: they go into a "Recovered" folder instead.
func (s *store) checkOrphans(st *stateFile, recovered bool) {
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
		if recovered {
			rescued = append(rescued, messageState{File: file, Date: modTime(path)})
		}
	}
	if len(rescued) == 0 {
		return
	}
	i := folderIndex(st, recoveredFolder)
	if i < 0 {
		st.Folders = append(st.Folders, folderState{Name: recoveredFolder, Subscribed: true})
		i = len(st.Folders) - 1
	}
	st.Folders[i].Messages = append(st.Folders[i].Messages, rescued...)
}
