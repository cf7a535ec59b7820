package devmail

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
)

// Names inside Options.DataDir (the layout is described in the package doc).
const (
	stateName   = "state.json"
	journalName = "journal.jsonl"
	messagesDir = "messages"
	messageExt  = ".eml"
	// stateVersion 2 keeps UIDs and UIDVALIDITY and checksums every line of
	// the state and of the journal; version 1 (no UIDs, no checksums, one
	// JSON object) is still read.
	stateVersion       = 2
	legacyStateVersion = 1
	dirPerm            = 0o700
	// recoveredFolder receives the intact message files that no readable
	// state or journal line places.
	recoveredFolder = "Recovered"
	filePerm        = 0o600
)

// stateFile is the state: every folder with its messages, written whole
// (temp file + rename) by each snapshot, one checksummed record a line
// (statefile.go).
type stateFile struct {
	Version int `json:"version"`
	// UIDValidity is the last UIDVALIDITY handed out; new folders take
	// values past it.
	UIDValidity uint32 `json:"uid_validity"`
	// JournalSeq is the last journal entry this state includes.
	JournalSeq uint64        `json:"journal_seq"`
	Folders    []folderState `json:"folders"`
	// WrittenAt and Removing name the files this snapshot no longer uses
	// and removes right after it is written: at the next start such a file,
	// if still there and not written since, is expunged mail, not lost mail.
	WrittenAt time.Time `json:"written_at,omitzero"`
	Removing  []string  `json:"removing,omitempty"`
}

type folderState struct {
	Name       string   `json:"name"`
	SpecialUse []string `json:"special_use,omitempty"`
	Subscribed bool     `json:"subscribed,omitempty"`
	// UIDValidity and UIDNext are kept across restarts; 0 (a version 1
	// state, or a folder whose UIDs could not be kept) gets new ones.
	UIDValidity uint32         `json:"uid_validity,omitempty"`
	UIDNext     imap.UID       `json:"uid_next,omitempty"`
	Messages    []messageState `json:"messages,omitempty"`
}

type messageState struct {
	UID   imap.UID  `json:"uid,omitempty"`
	File  string    `json:"file"` // SHA-256 of the content: messages/<file>.eml
	Flags []string  `json:"flags,omitempty"`
	Date  time.Time `json:"date"` // IMAP internal date
}

// journalOp names what a journal entry records.
type journalOp string

const (
	opAppend journalOp = "append"
	opCreate journalOp = "create"
	opDelete journalOp = "delete"
	opRename journalOp = "rename"
	// opChange is a COPY, MOVE or EXPUNGE: messages added to Folder
	// (UIDValidity) and UIDs expunged from Source (SourceUIDValidity).
	opChange journalOp = "change"
)

// journalLine is one line of journal.jsonl: an entry and the CRC-32C of its
// exact bytes (which finds every damage of up to 32 bits in a row).
type journalLine struct {
	CRC   string          `json:"crc"`
	Entry json.RawMessage `json:"e"`
}

// journalEntry is a change made since the last snapshot, written (and
// synced) before the client is answered.
type journalEntry struct {
	Seq         uint64    `json:"seq"`
	Op          journalOp `json:"op"`
	Folder      string    `json:"folder"`
	NewName     string    `json:"new_name,omitempty"`
	SpecialUse  []string  `json:"special_use,omitempty"`
	UIDValidity uint32    `json:"uid_validity,omitempty"`
	UID         imap.UID  `json:"uid,omitempty"`
	File        string    `json:"file,omitempty"`
	Flags       []string  `json:"flags,omitempty"`
	Date        time.Time `json:"date,omitzero"`

	Added             []messageState `json:"added,omitempty"`
	Source            string         `json:"source,omitempty"`
	SourceUIDValidity uint32         `json:"source_uid_validity,omitempty"`
	Expunged          []imap.UID     `json:"expunged,omitempty"`

	legacy bool // read from a version 1 journal: its UIDs mean nothing
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func crcOf(b []byte) string { return fmt.Sprintf("%08x", crc32.Checksum(b, crcTable)) }

// store is the on-disk side of a DataDir.
type store struct {
	dir string
	log *slog.Logger

	journalMu sync.Mutex
	journal   *os.File // nil once closed
	seq       uint64

	knownMu sync.Mutex
	// known holds the message files this store verified or wrote: the only
	// ones garbage collection may remove. A file that failed verification
	// is never in it, so it is never deleted.
	known map[string]bool
}

// openStore creates or opens dir and returns the state to restore: the last
// snapshot with the journal replayed on top, and every intact message file
// that neither places in the Recovered folder.
func openStore(dir string, log *slog.Logger) (*store, *stateFile, error) {
	if err := os.MkdirAll(filepath.Join(dir, messagesDir), dirPerm); err != nil {
		return nil, nil, storeError("create data dir", dir, err)
	}
	s := &store{dir: dir, log: log, known: make(map[string]bool)}
	st, trust, err := s.readState()
	if err != nil {
		return nil, nil, err
	}
	entries, damaged, torn, err := s.readJournal(trust.legacyJournal)
	if err != nil {
		return nil, nil, err
	}
	r := newReplay(st)
	s.seq = st.JournalSeq
	for _, e := range entries {
		if e.Seq > st.JournalSeq {
			r.apply(e)
		}
		s.seq = max(s.seq, e.Seq)
	}
	r.finish(damaged, trust.lost)
	if trust.lost || trust.damaged || len(damaged) > 0 {
		// A file no readable line names may be named by a damaged one:
		// only an undamaged state and journal prove a message expunged.
		r.dropped = nil
	}
	s.placeOrphans(st, r.dropped, trust.lost)
	f, err := os.OpenFile(filepath.Join(dir, journalName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, filePerm)
	if err != nil {
		return nil, nil, storeError("open journal", dir, err)
	}
	s.journal = f
	if torn {
		// End the line a crash cut short, so the next entry starts a line
		// of its own instead of being glued to it (and lost with it).
		if _, err := f.Write([]byte("\n")); err != nil {
			_ = f.Close()
			return nil, nil, storeError("write journal", dir, err)
		}
	}
	return s, st, nil
}

// readMessage reads a message file and checks it against its name (the
// SHA-256 of its content).
func (s *store) readMessage(file string) ([]byte, error) {
	if !validFileName(file) {
		return nil, fmt.Errorf("%w: bad message file name %q", ErrStore, file)
	}
	path := s.messagePath(file)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, storeError("read message", path, err)
	}
	if hashOf(raw) != file {
		return nil, fmt.Errorf("%w: %s: content does not match its name (partial or corrupted)", ErrStore, path)
	}
	s.knownMu.Lock()
	s.known[file] = true
	s.knownMu.Unlock()
	return raw, nil
}

// writeMessage stores raw under its hash (temp file, sync, rename, sync of
// the folder) and returns the file name.
func (s *store) writeMessage(raw []byte) (string, error) {
	file := hashOf(raw)
	path := s.messagePath(file)
	s.knownMu.Lock()
	known := s.known[file]
	s.knownMu.Unlock()
	if known {
		if _, err := os.Stat(path); err == nil {
			return file, nil
		}
	}
	if err := writeFileAtomic(filepath.Join(s.dir, messagesDir), file+messageExt, raw); err != nil {
		return "", storeError("write message", path, err)
	}
	s.knownMu.Lock()
	s.known[file] = true
	s.knownMu.Unlock()
	return file, nil
}

// logAppend journals an APPEND or delivery; the caller answers the client
// only if it succeeds.
func (s *store) logAppend(e journalEntry) error {
	return s.writeEntry(e)
}

// logOp journals a folder change, COPY, MOVE or EXPUNGE; a failure is
// logged (the next snapshot tries again), the client still gets its answer.
func (s *store) logOp(e journalEntry) {
	if err := s.writeEntry(e); err != nil {
		s.log.Warn("devmail: journal write failed", "op", e.Op, "err", err)
	}
}

func (s *store) writeEntry(e journalEntry) error {
	s.journalMu.Lock()
	defer s.journalMu.Unlock()
	if s.journal == nil {
		return ErrClosed
	}
	e.Seq = s.seq + 1
	raw, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("%w: encode journal entry: %w", ErrStore, err)
	}
	// Built by hand: json.Marshal would re-format the raw entry, and the
	// checksum is over its exact bytes.
	line := fmt.Appendf(nil, "{\"crc\":%q,\"e\":%s}\n", crcOf(raw), raw)
	if _, err := s.journal.Write(line); err != nil {
		return storeError("write journal", s.journal.Name(), err)
	}
	if err := s.journal.Sync(); err != nil {
		return storeError("sync journal", s.journal.Name(), err)
	}
	s.seq = e.Seq
	return nil
}

// commit writes a snapshot, empties the journal it includes and removes
// the message files no folder names any more.
func (s *store) commit(folders []folderState, lastUIDValidity uint32) error {
	s.journalMu.Lock()
	defer s.journalMu.Unlock()
	if s.journal == nil {
		return ErrClosed
	}
	used := make(map[string]bool)
	for _, f := range folders {
		for _, m := range f.Messages {
			used[m.File] = true
		}
	}
	removing := s.unused(used)
	st := stateFile{
		Version: stateVersion, UIDValidity: lastUIDValidity, JournalSeq: s.seq, Folders: folders,
		WrittenAt: time.Now().UTC(), Removing: removing,
	}
	data, err := encodeState(&st)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(s.dir, stateName, data); err != nil {
		return storeError("write state", filepath.Join(s.dir, stateName), err)
	}
	if err := s.journal.Truncate(0); err != nil {
		// Harmless: entries up to JournalSeq are skipped at the next start.
		s.log.Warn("devmail: truncate journal", "err", err)
	}
	s.remove(removing)
	return nil
}

// unused lists, sorted, the known files that used does not name.
func (s *store) unused(used map[string]bool) []string {
	s.knownMu.Lock()
	defer s.knownMu.Unlock()
	var out []string
	for file := range s.known {
		if !used[file] {
			out = append(out, file)
		}
	}
	slices.Sort(out)
	return out
}

// remove deletes message files of expunged mail.
func (s *store) remove(files []string) {
	s.knownMu.Lock()
	defer s.knownMu.Unlock()
	for _, file := range files {
		if err := os.Remove(s.messagePath(file)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("devmail: remove expunged message file", "file", file, "err", err)
			continue
		}
		delete(s.known, file)
	}
}

// close closes the journal; later writes fail with ErrClosed.
func (s *store) close() error {
	s.journalMu.Lock()
	defer s.journalMu.Unlock()
	if s.journal == nil {
		return nil
	}
	err := s.journal.Close()
	s.journal = nil
	if err != nil {
		return storeError("close journal", s.dir, err)
	}
	return nil
}

func (s *store) messagePath(file string) string {
	return filepath.Join(s.dir, messagesDir, file+messageExt)
}

// writeFileAtomic writes dir/name through a synced temp file and a rename,
// then syncs dir, so a crash leaves the old file or the new one.
func writeFileAtomic(dir, name string, data []byte) error {
	tmp, err := os.CreateTemp(dir, "."+name+".tmp-*") // mode 0600
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := d.Sync()
	return errors.Join(serr, d.Close())
}

func hashOf(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// validFileName accepts only what hashOf makes: 64 lower-case hex digits,
// so a tampered state file cannot name a path outside messages/.
func validFileName(file string) bool {
	if len(file) != sha256.Size*2 {
		return false
	}
	for _, c := range file {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func modTime(path string) time.Time {
	if fi, err := os.Stat(path); err == nil {
		return fi.ModTime()
	}
	return time.Now()
}

func storeError(op, path string, err error) error {
	return fmt.Errorf("%s %q: %w: %w", op, path, ErrStore, err)
}
