package devmail

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// A journal whose last line a crash cut short gets its line end at open,
// so the next entry is a line of its own: glued to the torn line it would
// fail its checksum and be lost with it.
func TestTornJournalLineDoesNotSwallowTheNext(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, messagesDir), dirPerm); err != nil {
		t.Fatal(err)
	}
	torn := `{"crc":"00000000","e":{"seq":1,"op":"app`
	if err := os.WriteFile(filepath.Join(dir, journalName), []byte(torn), filePerm); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	s, _, err := openStore(dir, log)
	if err != nil {
		t.Fatalf("openStore() = %v", err)
	}
	if err := s.writeEntry(journalEntry{Op: opCreate, Folder: "New", UIDValidity: 7}); err != nil {
		t.Fatalf("writeEntry() = %v", err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	s2 := &store{dir: dir, log: log, known: map[string]bool{}}
	entries, damaged, _, err := s2.readJournal(false)
	if err != nil {
		t.Fatalf("readJournal() = %v", err)
	}
	if len(entries) != 1 || entries[0].Folder != "New" || len(damaged) != 1 {
		t.Errorf("journal after a torn line and one entry: entries %+v, damaged %v; want the entry and one damaged line", entries, damaged)
	}
}
