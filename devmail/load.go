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
	// damaged: some lines of state.json could not be read, so a message
	// file that no line names may still be in use.
	damaged bool
}

// readState reads state.json. A missing file is an empty state, unless
// message files are there (the state was lost). A damaged one is renamed
// aside (never deleted) and what its readable lines hold is kept: each
// folder with its UIDVALIDITY, UIDNEXT and the messages whose lines are
// intact. Without its header the journal is replayed whole and the
// UIDVALIDITY counter moves past any value it can have held; with no
// readable line at all the state is lost (recoveredUIDValidity).
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
	if st, ok := decodeLegacyState(data); ok {
		return st, stateTrust{legacyJournal: true}, nil
	}
	st, dmg, ok := decodeState(data)
	if ok && dmg.lines == 0 && !dmg.headerLost {
		return st, stateTrust{}, nil
	}
	aside := fmt.Sprintf("%s.corrupt-%d", path, time.Now().UnixNano())
	if err := os.Rename(path, aside); err != nil {
		return nil, stateTrust{}, storeError("keep damaged state aside", path, err)
	}
	if !ok {
		s.log.Warn("devmail: state file damaged, kept aside; its messages go to the Recovered folder",
			"file", path, "kept_as", aside)
		return &stateFile{Version: stateVersion, UIDValidity: recoveredUIDValidity(data)}, stateTrust{lost: true}, nil
	}
	s.log.Warn("devmail: state file damaged, kept aside; what it cannot place goes to the Recovered folder",
		"file", path, "kept_as", aside, "damaged_lines", dmg.lines, "header_lost", dmg.headerLost)
	if dmg.headerLost {
		st.JournalSeq, st.Removing = 0, nil
		st.UIDValidity = recoveredUIDValidity(data)
	}
	return st, stateTrust{damaged: true}, nil
}

// decodeLegacyState reads a version 1 state.json (one JSON object).
func decodeLegacyState(data []byte) (*stateFile, bool) {
	st := new(stateFile)
	if err := json.Unmarshal(data, st); err != nil || st.Version != legacyStateVersion {
		return nil, false
	}
	// Version 1 kept no UIDs: its folders get new UIDVALIDITY values.
	for i := range st.Folders {
		st.Folders[i].UIDValidity, st.Folders[i].UIDNext = 0, 0
		for j := range st.Folders[i].Messages {
			st.Folders[i].Messages[j].UID = 0
		}
	}
	st.Version, st.Removing = stateVersion, nil
	return st, true
}

// uidValidityField finds the stored UIDVALIDITY in a state file that does
// not parse as a whole.
var uidValidityField = regexp.MustCompile(`"uid_validity"\s*:\s*([0-9]{1,10})`)

// maxRecoveredUIDValidity is the least the UIDVALIDITY counter starts at
// after the state's counter was lost: far past what a data dir reaches in
// use.
const maxRecoveredUIDValidity = 1 << 22

// recoveredUIDValidity is where the UIDVALIDITY counter starts when the
// state's own counter is lost: past maxRecoveredUIDValidity and past the
// largest value the damaged file still shows, with room for the folders
// created since it was written. A UID is then never given twice under one
// UIDVALIDITY.
func recoveredUIDValidity(damaged []byte) uint32 {
	const room = 1 << 16
	var best uint64
	for _, m := range uidValidityField.FindAllSubmatch(damaged, -1) {
		if v, err := strconv.ParseUint(string(m[1]), 10, 32); err == nil {
			best = max(best, v)
		}
	}
	return uint32(min(max(best+room, maxRecoveredUIDValidity), 1<<31))
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
