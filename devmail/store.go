package devmail

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
)

// Names inside Options.DataDir (the layout is described in the package doc).
const (
	stateName    = "state.json"
	journalName  = "journal.jsonl"
	messagesDir  = "messages"
	messageExt   = ".eml"
	stateVersion = 1
	dirPerm      = 0o700
	// recoveredFolder receives the messages found after state.json was lost.
	recoveredFolder = "Recovered"
	filePerm        = 0o600
)

// stateFile is state.json: every folder with its messages, written whole
// (temp file + rename) by each snapshot.
type stateFile struct {
	Version int `json:"version"`
	// UIDValidity is the last UIDVALIDITY handed out; the next start skips
	// past it so that renumbered UIDs never meet an old UIDVALIDITY.
	UIDValidity uint32 `json:"uid_validity"`
	// JournalSeq is the last journal entry this state includes.
	JournalSeq uint64        `json:"journal_seq"`
	Folders    []folderState `json:"folders"`
}

type folderState struct {
	Name       string         `json:"name"`
	SpecialUse []string       `json:"special_use,omitempty"`
	Subscribed bool           `json:"subscribed,omitempty"`
	Messages   []messageState `json:"messages"`
}

type messageState struct {
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
)

// journalEntry is one line of journal.jsonl: a change made since the last
// snapshot, written (and synced) before the client is answered.
type journalEntry struct {
	Seq         uint64    `json:"seq"`
	Op          journalOp `json:"op"`
	Folder      string    `json:"folder"`
	NewName     string    `json:"new_name,omitempty"`
	SpecialUse  []string  `json:"special_use,omitempty"`
	UIDValidity uint32    `json:"uid_validity,omitempty"`
	File        string    `json:"file,omitempty"`
	Flags       []string  `json:"flags,omitempty"`
	Date        time.Time `json:"date,omitzero"`
}

// msgKey names a message in imapmemserver for as long as the process runs:
// UIDVALIDITY values are never reused within a run.
type msgKey struct {
	uidValidity uint32
	uid         imap.UID
}

type msgRef struct {
	file string
	date time.Time
	size int64
}

// store is the on-disk side of a DataDir.
type store struct {
	dir string
	log *slog.Logger

	journalMu sync.Mutex
	journal   *os.File // nil once closed
	seq       uint64

	refsMu sync.Mutex
	refs   map[msgKey]msgRef
	// known holds the message files this store verified or wrote: the only
	// ones garbage collection may remove. A file that failed verification
	// is never in it, so it is never deleted.
	known map[string]bool
}

// openStore creates or opens dir and returns the state to restore: the last
// snapshot with the journal replayed on top.
func openStore(dir string, log *slog.Logger) (*store, *stateFile, error) {
	if err := os.MkdirAll(filepath.Join(dir, messagesDir), dirPerm); err != nil {
		return nil, nil, storeError("create data dir", dir, err)
	}
	s := &store{dir: dir, log: log, refs: make(map[msgKey]msgRef), known: make(map[string]bool)}
	st, recovered, err := s.readState()
	if err != nil {
		return nil, nil, err
	}
	entries, err := s.readJournal()
	if err != nil {
		return nil, nil, err
	}
	s.seq = st.JournalSeq
	for _, e := range entries {
		if e.Seq > st.JournalSeq {
			applyEntry(st, e)
		}
		s.seq = max(s.seq, e.Seq)
	}
	s.checkOrphans(st, recovered)
	f, err := os.OpenFile(filepath.Join(dir, journalName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, filePerm)
	if err != nil {
		return nil, nil, storeError("open journal", dir, err)
	}
	s.journal = f
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
	s.refsMu.Lock()
	s.known[file] = true
	s.refsMu.Unlock()
	return raw, nil
}

// writeMessage stores raw under its hash (temp file, sync, rename, sync of
// the folder) and returns the file name.
func (s *store) writeMessage(raw []byte) (string, error) {
	file := hashOf(raw)
	path := s.messagePath(file)
	s.refsMu.Lock()
	known := s.known[file]
	s.refsMu.Unlock()
	if known {
		if _, err := os.Stat(path); err == nil {
			return file, nil
		}
	}
	if err := writeFileAtomic(filepath.Join(s.dir, messagesDir), file+messageExt, raw); err != nil {
		return "", storeError("write message", path, err)
	}
	s.refsMu.Lock()
	s.known[file] = true
	s.refsMu.Unlock()
	return file, nil
}

// remember records which file holds a message of imapmemserver.
func (s *store) remember(key msgKey, ref msgRef) {
	s.refsMu.Lock()
	s.refs[key] = ref
	s.refsMu.Unlock()
}

// candidates lists the distinct files of remembered messages with this size
// and internal date (to the second, as FETCH shows it).
func (s *store) candidates(size int64, date time.Time) []msgRef {
	s.refsMu.Lock()
	defer s.refsMu.Unlock()
	seen := make(map[string]bool)
	var out []msgRef
	for _, ref := range s.refs {
		if ref.size == size && ref.date.Unix() == date.Unix() && !seen[ref.file] {
			seen[ref.file] = true
			out = append(out, ref)
		}
	}
	return out
}

func (s *store) lookup(key msgKey) (msgRef, bool) {
	s.refsMu.Lock()
	defer s.refsMu.Unlock()
	ref, ok := s.refs[key]
	return ref, ok
}

// logAppend journals an APPEND or delivery; the caller answers the client
// only if it succeeds.
func (s *store) logAppend(e journalEntry) error {
	return s.writeEntry(e)
}

// logOp journals a folder change; a failure is logged (the next snapshot
// tries again), the client still gets its answer.
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
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("%w: encode journal entry: %w", ErrStore, err)
	}
	if _, err := s.journal.Write(append(line, '\n')); err != nil {
		return storeError("write journal", s.journal.Name(), err)
	}
	if err := s.journal.Sync(); err != nil {
		return storeError("sync journal", s.journal.Name(), err)
	}
	s.seq = e.Seq
	return nil
}

// commit writes a snapshot, empties the journal it includes, forgets the
// messages no longer present and removes their files.
func (s *store) commit(folders []folderState, lastUIDValidity uint32, present map[msgKey]bool) error {
	s.journalMu.Lock()
	defer s.journalMu.Unlock()
	if s.journal == nil {
		return ErrClosed
	}
	st := stateFile{Version: stateVersion, UIDValidity: lastUIDValidity, JournalSeq: s.seq, Folders: folders}
	data, err := json.MarshalIndent(st, "", "\t")
	if err != nil {
		return fmt.Errorf("%w: encode state: %w", ErrStore, err)
	}
	if err := writeFileAtomic(s.dir, stateName, data); err != nil {
		return storeError("write state", filepath.Join(s.dir, stateName), err)
	}
	if err := s.journal.Truncate(0); err != nil {
		// Harmless: entries up to JournalSeq are skipped at the next start.
		s.log.Warn("devmail: truncate journal", "err", err)
	}
	s.collect(folders, present)
	return nil
}

// collect drops references to expunged messages and removes the files that
// no folder names any more.
func (s *store) collect(folders []folderState, present map[msgKey]bool) {
	used := make(map[string]bool)
	for _, f := range folders {
		for _, m := range f.Messages {
			used[m.File] = true
		}
	}
	s.refsMu.Lock()
	defer s.refsMu.Unlock()
	for key := range s.refs {
		if !present[key] {
			delete(s.refs, key)
		}
	}
	for file := range s.known {
		if used[file] {
			continue
		}
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
