package tools_test

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
	"github.com/email-mcp/email-mcp/smtp"
	"github.com/email-mcp/email-mcp/tools"
)

// relay is a submission server in front of the account's mailbox: on the
// Dovecot tier it delivers through Dovecot's LMTP (a real delivery into a
// real Maildir), in-process it APPENDs to the account's INBOX. It requires
// AUTH, like a real submission service.
type relay struct {
	t    *testing.T
	acct *mailtest.Account
	mu   sync.Mutex
	got  [][]byte
	envs [][]string // the envelope recipients of each message in got
}

func (r *relay) NewSession(*gosmtp.Conn) (gosmtp.Session, error) { return &relaySession{r: r}, nil }

type relaySession struct {
	r      *relay
	authed bool
	rcpts  []string
	from   string
}

func (s *relaySession) AuthMechanisms() []string { return []string{"PLAIN"} }
func (s *relaySession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.r.acct.Username || pass != s.r.acct.Password {
			return errors.New("bad credentials")
		}
		s.authed = true
		return nil
	}), nil
}
func (s *relaySession) Mail(from string, _ *gosmtp.MailOptions) error {
	if !s.authed {
		return gosmtp.ErrAuthRequired
	}
	s.from = from
	return nil
}
func (s *relaySession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	s.rcpts = append(s.rcpts, to)
	return nil
}
func (s *relaySession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.r.mu.Lock()
	s.r.got = append(s.r.got, raw)
	s.r.envs = append(s.r.envs, s.rcpts)
	s.r.mu.Unlock()
	if addr := os.Getenv("DOVECOT_LMTP_ADDR"); s.r.acct.Dovecot && addr != "" {
		return deliverLMTP(addr, s.from, s.r.acct.Username, raw)
	}
	s.r.acct.Append(s.r.t, "INBOX", raw)
	return nil
}
func (s *relaySession) Reset()        { s.rcpts, s.from = nil, "" }
func (s *relaySession) Logout() error { return nil }

// deliverLMTP hands the message to Dovecot's LMTP for the account's user.
func deliverLMTP(addr, from, user string, raw []byte) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	c := gosmtp.NewClientLMTP(conn)
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		return err
	}
	return c.SendMail(from, []string{user}, bytes.NewReader(raw))
}

// relayClients serves be as the submission server on loopback and returns
// an IMAP client of acct and a sender that submits through be with AUTH.
func relayClients(t *testing.T, acct *mailtest.Account, be gosmtp.Backend) (*imap.Client, *smtp.Sender) {
	t.Helper()
	shost, sport := serveSMTP(t, gosmtp.NewServer(be))
	mail := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password, Security: imap.SecurityPlain})
	t.Cleanup(func() { _ = mail.Close() })
	sender := smtp.New(smtp.Options{Host: shost, Port: sport, Username: acct.Username, Password: acct.Password, Security: smtp.SecurityPlain})
	return mail, sender
}

// TestSubmissionRoundTrip sends through a submission server that needs AUTH
// into the account's real mailbox (Dovecot's LMTP on the tier), then reads
// the mail back with read_email: the headers are the ones sent.
func TestSubmissionRoundTrip(t *testing.T) {
	acct := mailtest.NewAccount(t)
	rl := &relay{t: t, acct: acct}
	mail, sender := relayClients(t, acct, rl)
	ts, err := tools.New(tools.Deps{Mail: mail, Sent: mail, Sender: sender,
		Send: tools.SendOptions{From: acct.Username, FromName: "Round Trip", SaveSent: "true"}}, tools.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	c := inProcessClient(t, ts)
	e := &mailEnv{acct: acct, client: c}

	var sent tools.SendResult
	e.call(t, "send_email", map[string]any{"to": acct.Username, "cc": "Copy <copy@example.test>", "bcc": "hidden@example.test",
		"subject": "Über den Round trip", "body": "Zeile eins\nZeile zwei – with UTF-8", "body_html": "<p>Zeile <b>eins</b></p>"}, &sent)
	if sent.SentCopy != "saved" || len(sent.Accepted) != 3 {
		t.Errorf("send = %+v, want saved and 3 accepted", sent)
	}
	got := findOne(t, e, "INBOX", "Round trip")
	var read tools.ReadResult
	e.call(t, "read_email", map[string]any{"uid": got.UID, "format": "both"}, &read)
	if read.Subject != "Über den Round trip" || read.MessageID != sent.MessageID || read.From != "Round Trip <"+acct.Username+">" ||
		len(read.Cc) != 1 || read.Cc[0] != "Copy <copy@example.test>" || !strings.Contains(read.BodyText, "Zeile zwei – with UTF-8") || read.BodyHTML == nil {
		t.Errorf("read back = %+v", read)
	}
	// The reply threads, through the same path.
	var reply tools.ReplyResult
	e.call(t, "reply_email", map[string]any{"uid": got.UID, "body": "Antwort"}, &reply)
	var r2 tools.SearchResult
	e.call(t, "search_emails", map[string]any{"subject": "Re: Über den Round trip"}, &r2)
	if r2.Total != 1 {
		t.Fatalf("reply not delivered: %+v", r2)
	}
	var rr tools.ReadResult
	e.call(t, "read_email", map[string]any{"uid": r2.Messages[0].UID}, &rr)
	if rr.InReplyTo != sent.MessageID || len(rr.References) != 1 || rr.References[0] != sent.MessageID {
		t.Errorf("reply threading = %q %v, want %q", rr.InReplyTo, rr.References, sent.MessageID)
	}
	if !strings.Contains(strings.Join(acct.Flags(t, "INBOX", got.UID), " "), `\Answered`) {
		t.Error(`the original is not \Answered`)
	}
	var sentFolder tools.SearchResult
	e.call(t, "search_emails", map[string]any{"folder": acct.Folder("Sent")}, &sentFolder)
	if sentFolder.Total != 2 {
		t.Errorf("Sent holds %d copies, want 2", sentFolder.Total)
	}
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if len(rl.got) != 2 {
		t.Fatalf("relay received %d messages, want 2", len(rl.got))
	}
	// The Bcc recipient is in the envelope only, never in the message.
	if !slices.Contains(rl.envs[0], "hidden@example.test") || bytes.Contains(bytes.ToLower(rl.got[0]), []byte("\nbcc:")) ||
		bytes.Contains(rl.got[0], []byte("hidden@")) {
		t.Errorf("first message: envelope %q, headers %.400q; want hidden@example.test in the envelope only", rl.envs[0], rl.got[0])
	}
}

// gmailLike is a relay that files its own copy in Sent, as Gmail does: the
// sent copy must then be skipped, not duplicated.
type gmailLike struct{ relay }

func (g *gmailLike) NewSession(c *gosmtp.Conn) (gosmtp.Session, error) {
	return &gmailSession{relaySession{r: &g.relay}}, nil
}

type gmailSession struct{ relaySession }

func (s *gmailSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.r.acct.Append(s.r.t, s.r.acct.Folder("Sent"), raw, `\Seen`)
	return nil
}

func TestSentCopySkippedWhenServerFiledIt(t *testing.T) {
	acct := mailtest.NewAccount(t)
	g := &gmailLike{relay{t: t, acct: acct}}
	mail, sender := relayClients(t, acct, g)
	for _, tc := range []struct {
		sentFolder, want string
		copies           int
	}{
		{"", "skipped", 1}, // the server filed it: no duplicate
		{acct.Folder("No Such Sent Folder"), "failed", 2}, // the copy fails, the send does not
	} {
		ts, err := tools.New(tools.Deps{Mail: mail, Sent: mail, Sender: sender,
			Send: tools.SendOptions{From: acct.Username, SaveSent: "true", SentFolder: tc.sentFolder}}, tools.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		c := inProcessClient(t, ts)
		e := &mailEnv{acct: acct, client: c}
		var sent tools.SendResult
		e.call(t, "send_email", map[string]any{"to": "x@example.test", "subject": "filed " + tc.want, "body": "b"}, &sent)
		if !sent.Success || sent.SentCopy != tc.want {
			t.Errorf("SENT_FOLDER=%q: send = %+v, want success with sent_copy %s", tc.sentFolder, sent, tc.want)
		}
		var r tools.SearchResult
		e.call(t, "search_emails", map[string]any{"folder": acct.Folder("Sent"), "subject": "filed"}, &r)
		if r.Total != tc.copies {
			t.Errorf("Sent holds %d copies after %q, want %d", r.Total, tc.want, tc.copies)
		}
	}
}
