package imap_test

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"strings"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
)

// More capability sets of the test server.
var (
	// capsFull has every extension the message operations use.
	capsFull = goimap.CapSet{goimap.CapIMAP4rev1: {}, goimap.CapMove: {}, goimap.CapUIDPlus: {},
		goimap.CapESearch: {}, goimap.CapListExtended: {}, goimap.CapListStatus: {}, goimap.CapSpecialUse: {}}
	// capsUIDPlus has UIDPLUS but not MOVE.
	capsUIDPlus = goimap.CapSet{goimap.CapIMAP4rev1: {}, goimap.CapUIDPlus: {}}
)

// commands returns the commands clients sent since the last call.
func (ts *testServer) commands() []string { return ts.ln.cmds.take() }

// deliver stores raw in folder in-process (no IMAP) and returns its UID.
func (ts *testServer) deliver(t testing.TB, folder, raw string, date time.Time, flags ...goimap.Flag) uint32 {
	t.Helper()
	data, err := ts.user.Append(folder, bytes.NewReader([]byte(raw)), &goimap.AppendOptions{Flags: flags, Time: date})
	if err != nil {
		t.Fatalf("Append(%q) = %v", folder, err)
	}
	ts.notify()
	return uint32(data.UID)
}

// failNextSearch makes the next SEARCH answer err.
func (ts *testServer) failNextSearch(err error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.searchErr = err
}

func (ts *testServer) takeSearchErr() error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	err := ts.searchErr
	ts.searchErr = nil
	return err
}

// Select records the selected folder and its UIDVALIDITY.
func (s *testSession) Select(name string, options *goimap.SelectOptions) (*goimap.SelectData, error) {
	s.selected, s.selectedUIDValidity = "", 0
	data, err := s.UserSession.Select(name, options)
	if err == nil {
		s.selected, s.selectedUIDValidity = name, data.UIDValidity
	}
	return data, err
}

// Search answers an injected failure, or hangs up like Dovecot when the
// selected folder was deleted or recreated since it was selected.
func (s *testSession) Search(kind imapserver.NumKind, criteria *goimap.SearchCriteria, options *goimap.SearchOptions) (*goimap.SearchData, error) {
	if s.selectedGone() {
		s.conn.Bye("Selected mailbox was deleted, have to disconnect")
		return nil, errors.New("selected mailbox was deleted")
	}
	if err := s.ts.takeSearchErr(); err != nil {
		return nil, err
	}
	return s.UserSession.Search(kind, criteria, options)
}

// selectedGone reports whether the selected folder was deleted or
// recreated since it was selected.
func (s *testSession) selectedGone() bool {
	sd, err := s.ts.user.Status(s.selected, &goimap.StatusOptions{UIDValidity: true})
	return err != nil || sd.UIDValidity != s.selectedUIDValidity
}

// testMsg describes a message for rawMessage.
type testMsg struct {
	from, to, subject, body string
	id                      string // Message-ID without <>
	date                    time.Time
	attachment              string // a filename: adds a PDF attachment (multipart/mixed)
}

// rawMessage renders m with encoded words for non-ASCII headers.
func rawMessage(m testMsg) string {
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\n", encodeAddr(m.from), encodeAddr(m.to), mime.BEncoding.Encode("utf-8", m.subject))
	if m.id != "" {
		fmt.Fprintf(&b, "Message-ID: <%s>\r\n", m.id)
	}
	if !m.date.IsZero() {
		fmt.Fprintf(&b, "Date: %s\r\n", m.date.Format(time.RFC1123Z))
	}
	b.WriteString("MIME-Version: 1.0\r\n")
	if m.attachment == "" {
		fmt.Fprintf(&b, "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n%s\r\n", m.body)
		return b.String()
	}
	b.WriteString("Content-Type: multipart/mixed; boundary=\"BOUNDARY\"\r\n\r\n")
	fmt.Fprintf(&b, "--BOUNDARY\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n%s\r\n", m.body)
	fmt.Fprintf(&b, "--BOUNDARY\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename=%q\r\n"+
		"Content-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQKJcOkw7zDtsOfCg==\r\n--BOUNDARY--\r\n", m.attachment)
	return b.String()
}

// encodeAddr encodes the display name of "Name <addr>".
func encodeAddr(a string) string {
	name, addr, ok := strings.Cut(a, " <")
	if !ok {
		return a
	}
	return mime.BEncoding.Encode("utf-8", name) + " <" + addr
}

// day is midnight UTC of a date.
func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// goimapStatusUnseen asks STATUS for the unseen count.
var goimapStatusUnseen = goimap.StatusOptions{NumUnseen: true}
