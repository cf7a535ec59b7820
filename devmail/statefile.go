package devmail

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// state.json is one record a line, each in the journal's checksummed
// wrapper ({"crc":…,"e":{…}}): a header, then each folder followed by its
// messages. Damage to a byte then costs only its line: a damaged message
// line loses that message's place (its file goes to Recovered), a damaged
// folder line that folder's (its messages go to Recovered), a damaged
// header the journal position and the list of files being removed.

// stateHeader is the first record of state.json.
type stateHeader struct {
	Version     int       `json:"version"`
	UIDValidity uint32    `json:"uid_validity"`
	JournalSeq  uint64    `json:"journal_seq"`
	WrittenAt   time.Time `json:"written_at,omitzero"`
	Removing    []string  `json:"removing,omitempty"`
}

// stateRecord is one line of state.json: exactly one of its fields is set.
// A message names its folder by UIDVALIDITY (In), so that a damaged folder
// line cannot hand its messages to the folder before it.
type stateRecord struct {
	Header  *stateHeader  `json:"header,omitempty"`
	Folder  *folderState  `json:"folder,omitempty"`
	In      uint32        `json:"in,omitempty"`
	Message *messageState `json:"message,omitempty"`
}

// encodeState is state.json's bytes.
func encodeState(st *stateFile) ([]byte, error) {
	var b bytes.Buffer
	write := func(r stateRecord) error {
		raw, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("%w: encode state: %w", ErrStore, err)
		}
		// Built by hand: json.Marshal would re-format the raw record, and
		// the checksum is over its exact bytes.
		fmt.Fprintf(&b, "{\"crc\":%q,\"e\":%s}\n", crcOf(raw), raw)
		return nil
	}
	h := stateHeader{Version: stateVersion, UIDValidity: st.UIDValidity, JournalSeq: st.JournalSeq, WrittenAt: st.WrittenAt, Removing: st.Removing}
	if err := write(stateRecord{Header: &h}); err != nil {
		return nil, err
	}
	for _, f := range st.Folders {
		folder := f
		folder.Messages = nil
		if err := write(stateRecord{Folder: &folder}); err != nil {
			return nil, err
		}
		for _, m := range f.Messages {
			if err := write(stateRecord{In: f.UIDValidity, Message: &m}); err != nil {
				return nil, err
			}
		}
	}
	return b.Bytes(), nil
}

// stateDamage says what decodeState could not read.
type stateDamage struct {
	lines      int  // lines that failed their checksum or did not parse
	headerLost bool // no readable header: journal position and removals unknown
}

// decodeState reads state.json's records; ok is false when no line at all
// is readable.
func decodeState(data []byte) (st *stateFile, dmg stateDamage, ok bool) {
	st = &stateFile{Version: stateVersion}
	dmg.headerLost = true
	byValidity := make(map[uint32]int)
	var orphans int
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r, good := decodeStateLine(line)
		switch {
		case !good:
			dmg.lines++
			continue
		case r.Header != nil && dmg.headerLost && r.Header.Version == stateVersion:
			dmg.headerLost = false
			st.UIDValidity, st.JournalSeq = r.Header.UIDValidity, r.Header.JournalSeq
			st.WrittenAt, st.Removing = r.Header.WrittenAt, r.Header.Removing
		case r.Folder != nil && r.Folder.UIDValidity != 0:
			if _, dup := byValidity[r.Folder.UIDValidity]; dup || folderIndex(st, r.Folder.Name) >= 0 {
				dmg.lines++
				continue
			}
			byValidity[r.Folder.UIDValidity] = len(st.Folders)
			st.Folders = append(st.Folders, *r.Folder)
		case r.Message != nil:
			i, found := byValidity[r.In]
			if !found {
				orphans++ // its folder line was damaged: the file goes to Recovered
				continue
			}
			st.Folders[i].Messages = append(st.Folders[i].Messages, *r.Message)
		default:
			dmg.lines++
			continue
		}
		ok = true
	}
	return st, dmg, ok
}

func decodeStateLine(line []byte) (stateRecord, bool) {
	var jl journalLine
	var r stateRecord
	if json.Unmarshal(line, &jl) != nil || jl.CRC != crcOf(jl.Entry) || json.Unmarshal(jl.Entry, &r) != nil {
		return stateRecord{}, false
	}
	return r, true
}
