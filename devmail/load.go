package devmail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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

// stateTrust says how far the state read at start can be trusted.
type stateTrust struct {
	// lost: there was no readable state.json although message files are
	// there. Every folder then gets a new UIDVALIDITY (its UIDs are not
	// known), and every message file the journal does not place goes to
	// the Recovered folder.
	lost bool
	// legacyJournal: journal lines without a checksum (written by a
	// version 1 store) are read too.
	legacyJournal bool
}

// readState reads state.json. A missing file is an empty state, unless
// message files are there (the state was lost); one that does not parse or
// whose checksum does not match is renamed aside (never deleted). A lost
// state starts its UIDVALIDITY past any value it can have handed out
// (recoveredUIDValidity).
func (s *store) readState() (*stateFile, stateTrust, error) {
	path := filepath.Join(s.dir, stateName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		files, _ := filepath.Glob(filepath.Join(s.dir, messagesDir, "*"+messageExt))
		if len(files) == 0 {
			return &stateFile{Version: stateVersion}, stateTrust{legacyJournal: true}, nil
		}
		s.log.Warn("devmail: state file missing but message files present; they go to the Recovered folder",
			"file", path, "messages", len(files))
		return &stateFile{Version: stateVersion, UIDValidity: recoveredUIDValidity(nil)}, stateTrust{lost: true}, nil
	} else if err != nil {
		return nil, stateTrust{}, storeError("read state", path, err)
	}
	if st, legacy, ok := decodeState(data); ok {
		return st, stateTrust{legacyJournal: legacy}, nil
	}
	aside := fmt.Sprintf("%s.corrupt-%d", path, time.Now().UnixNano())
	s.log.Warn("devmail: state file damaged, kept aside; its messages go to the Recovered folder",
		"file", path, "kept_as", aside)
	if err := os.Rename(path, aside); err != nil {
		return nil, stateTrust{}, storeError("keep damaged state aside", path, err)
	}
	return &stateFile{Version: stateVersion, UIDValidity: recoveredUIDValidity(data)}, stateTrust{lost: true}, nil
}

// decodeState parses state.json: a version 2 envelope whose checksum
// matches, or a version 1 state (legacy reports that one).
func decodeState(data []byte) (st *stateFile, legacy, ok bool) {
	var env stateEnvelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, false, false
	}
	switch env.Version {
	case stateVersion:
		sum := sha256.Sum256(env.State)
		if env.SHA256 != hex.EncodeToString(sum[:]) {
			return nil, false, false
		}
		st = new(stateFile)
		if err := json.Unmarshal(env.State, st); err != nil || st.Version != stateVersion {
			return nil, false, false
		}
		return st, false, true
	case legacyStateVersion:
		st = new(stateFile)
		if err := json.Unmarshal(data, st); err != nil {
			return nil, false, false
		}
		// Version 1 kept no UIDs: its folders get new UIDVALIDITY values.
		for i := range st.Folders {
			st.Folders[i].UIDValidity, st.Folders[i].UIDNext = 0, 0
			for j := range st.Folders[i].Messages {
				st.Folders[i].Messages[j].UID = 0
			}
		}
		st.Version, st.Removing = stateVersion, nil
		return st, true, true
	}
	return nil, false, false
}

// uidValidityField finds the stored UIDVALIDITY in a state file that does
// not parse as a whole.
var uidValidityField = regexp.MustCompile(`"uid_validity"\s*:\s*([0-9]{1,10})`)

// maxRecoveredUIDValidity is where the UIDVALIDITY counter starts after a
// state was lost that shows no value: far past what a data dir reaches in
// use.
const maxRecoveredUIDValidity = 1 << 22

// recoveredUIDValidity is where the UIDVALIDITY counter starts after the
// state was lost: past the largest value the damaged file still shows, with
// room for the folders created since it was written; without one, at
// maxRecoveredUIDValidity. A UID is then never given twice under one
// UIDVALIDITY.
func recoveredUIDValidity(damaged []byte) uint32 {
	const room = 1 << 16
	var best uint64
	for _, m := range uidValidityField.FindAllSubmatch(damaged, -1) {
		if v, err := strconv.ParseUint(string(m[1]), 10, 32); err == nil {
			best = max(best, v)
		}
	}
	if best == 0 || best >= maxRecoveredUIDValidity-room {
		return maxRecoveredUIDValidity
	}
	return uint32(best) + room
}

// readJournal reads journal.jsonl. A line whose checksum does not match or
// that does not parse (a write cut short by a crash, or damage) is skipped
// with a warning; damaged returns the length of each such line, which
// bounds what it can have recorded; torn reports a last line without its
// line end. Lines without a checksum are accepted only when legacy is set.
func (s *store) readJournal(legacy bool) (entries []journalEntry, damaged []int, torn bool, err error) {
	path := filepath.Join(s.dir, journalName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, false, nil
	} else if err != nil {
		return nil, nil, false, storeError("read journal", path, err)
	}
	torn = len(data) > 0 && data[len(data)-1] != '\n'
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, ok := decodeJournalLine(line, legacy)
		if !ok {
			s.log.Warn("devmail: skipping damaged journal line", "file", path, "line", i+1)
			damaged = append(damaged, len(line))
			continue
		}
		entries = append(entries, e)
	}
	return entries, damaged, torn, nil
}

func decodeJournalLine(line []byte, legacy bool) (journalEntry, bool) {
	var e journalEntry
	var jl journalLine
	if err := json.Unmarshal(line, &jl); err == nil && jl.CRC != "" {
		if jl.CRC != crcOf(jl.Entry) || json.Unmarshal(jl.Entry, &e) != nil || e.Seq == 0 {
			return journalEntry{}, false
		}
		return e, true
	}
	if !legacy || json.Unmarshal(line, &e) != nil || e.Seq == 0 {
		return journalEntry{}, false
	}
	e.legacy = true // version 1 kept no UIDs
	return e, true
}
