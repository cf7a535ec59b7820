package mailtest

import (
	"crypto/tls"
	"errors"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// These tests run in-process by default and against Dovecot with
// EMAIL_MCP_TEST_DOVECOT=1 (scripts/dovecot/run-tier.sh ./internal/mailtest/).

const testMessage = "From: Bob <bob@example.test>\r\nTo: alice@example.test\r\n" +
	"Subject: hello\r\nDate: Mon, 02 Jan 2006 15:04:05 +0000\r\nMessage-ID: <m1@example.test>\r\n\r\nHi Alice.\r\n"

func TestNewAccountMode(t *testing.T) {
	a := NewAccount(t)
	if a.Dovecot != Dovecot() {
		t.Errorf("Dovecot = %v, want %v", a.Dovecot, Dovecot())
	}
	if a.Host != "127.0.0.1" || a.Port == 0 || a.Username == "" || a.Password == "" {
		t.Errorf("account = %+v, want 127.0.0.1, a port, a user and a password", a)
	}
	if a.Prefix != "" {
		t.Errorf("Prefix = %q, want \"\" (a user of its own)", a.Prefix)
	}
	if Dovecot() {
		if a.TLSPort == 0 || a.CAFile == "" || !strings.HasSuffix(a.Username, "@"+os.Getenv("DOVECOT_TEST_DOMAIN")) {
			t.Errorf("Dovecot account = %+v, want a TLS port, a CA and a user of the test domain", a)
		}
	} else if a.TLSPort != 0 || a.CAFile != "" {
		t.Errorf("in-process account = %+v, want no TLS", a)
	}
}

func TestCapabilities(t *testing.T) {
	c := NewAccount(t).Client(t)
	for _, want := range []imap.Cap{imap.CapIMAP4rev1, imap.CapIdle, imap.CapMove, imap.CapUIDPlus,
		imap.CapSpecialUse, imap.CapListExtended, imap.CapListStatus, imap.CapESearch} {
		if !c.Caps().Has(want) {
			t.Errorf("Caps() has no %s: %v", want, c.Caps())
		}
	}
}

func TestDefaultFolders(t *testing.T) {
	a := NewAccount(t)
	c := a.Client(t)
	boxes, err := c.List("", "*", &imap.ListOptions{ReturnSpecialUse: true, ReturnSubscribed: true}).Collect()
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	got := map[string]*imap.ListData{}
	for _, b := range boxes {
		got[b.Mailbox] = b
	}
	tests := []struct {
		name       string
		use        imap.MailboxAttr
		subscribed bool
	}{
		{"INBOX", "", !a.Dovecot}, // start.sh leaves it unsubscribed; devmail subscribes it
		{"Sent", imap.MailboxAttrSent, true},
		{"Drafts", imap.MailboxAttrDrafts, true},
		{"Trash", imap.MailboxAttrTrash, true},
		{"Junk", imap.MailboxAttrJunk, true},
		{"Archive", imap.MailboxAttrArchive, true},
	}
	if len(boxes) != len(tests) {
		t.Errorf("List() = %d folders, want %d", len(boxes), len(tests))
	}
	for _, tt := range tests {
		b := got[tt.name]
		if b == nil {
			t.Errorf("List() has no %q", tt.name)
			continue
		}
		if tt.use != "" && !hasAttr(b.Attrs, tt.use) {
			t.Errorf("List() %q attrs = %v, want %s", tt.name, b.Attrs, tt.use)
		}
		if hasAttr(b.Attrs, imap.MailboxAttrSubscribed) != tt.subscribed {
			t.Errorf("List() %q attrs = %v, want subscribed %v", tt.name, b.Attrs, tt.subscribed)
		}
		if b.Delim != '/' {
			t.Errorf("List() %q delim = %q, want '/'", tt.name, b.Delim)
		}
	}
}

func TestAppendFlags(t *testing.T) {
	a := NewAccount(t)
	tests := []struct {
		folder string
		flags  []string
		want   []string
	}{
		{"INBOX", nil, []string{}},
		{"INBOX", []string{`\Seen`}, []string{`\Seen`}},
		{"Archive", []string{`\Flagged`, `\Seen`, `$Forwarded`}, []string{`$Forwarded`, `\Flagged`, `\Seen`}},
		{"Drafts", []string{`\Draft`}, []string{`\Draft`}},
	}
	var last uint32
	for _, tt := range tests {
		uid := a.Append(t, tt.folder, []byte(testMessage), tt.flags...)
		if tt.folder == "INBOX" && uid <= last {
			t.Errorf("Append(INBOX) = UID %d, want more than %d", uid, last)
		}
		if tt.folder == "INBOX" {
			last = uid
		}
		if got := a.Flags(t, tt.folder, uid); !slices.Equal(got, tt.want) {
			t.Errorf("Flags(%q, %d) = %q, want %q", tt.folder, uid, got, tt.want)
		}
	}
}

func TestFlagsFollowStore(t *testing.T) {
	a := NewAccount(t)
	uid := a.Append(t, "INBOX", []byte(testMessage))
	c := a.Client(t)
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		t.Fatalf("Select() = %v", err)
	}
	store := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagAnswered}}
	if err := c.Store(imap.UIDSetNum(imap.UID(uid)), store, nil).Close(); err != nil {
		t.Fatalf("Store() = %v", err)
	}
	if got := a.Flags(t, "INBOX", uid); !slices.Equal(got, []string{`\Answered`}) {
		t.Errorf("Flags() = %q, want [\\Answered]", got)
	}
}

func TestCreateFolderNested(t *testing.T) {
	a := NewAccount(t)
	a.CreateFolder(t, "Projects/2024")
	a.Append(t, "Projects/2024", []byte(testMessage))
	st, err := a.Client(t).Status(a.Folder("Projects/2024"), &imap.StatusOptions{NumMessages: true}).Wait()
	if err != nil {
		t.Fatalf("Status() = %v", err)
	}
	if *st.NumMessages != 1 {
		t.Errorf("Status(Projects/2024) = %d messages, want 1", *st.NumMessages)
	}
}

// TestListAttributes pins the attributes of LIST as Dovecot 2.3 sends them,
// so that code tested in-process behaves the same on Dovecot. "-" marks a
// folder the LIST must leave out.
func TestListAttributes(t *testing.T) {
	a := NewAccount(t)
	a.CreateFolder(t, "Projects/2024")
	parent, child := a.Folder("Projects"), a.Folder("Projects/2024")
	tests := []struct {
		name                string
		options             *imap.ListOptions
		parent, child, sent string
	}{
		{"plain", nil, `\HasChildren \Noselect`, `\HasNoChildren`, `\HasNoChildren \Sent`},
		{"RETURN (SPECIAL-USE)", &imap.ListOptions{ReturnSpecialUse: true}, `\Noselect`, ``, `\Sent`},
		{"RETURN (STATUS)", &imap.ListOptions{ReturnStatus: &imap.StatusOptions{NumMessages: true}}, `\Noselect`, ``, ``},
		{"RETURN (CHILDREN)", &imap.ListOptions{ReturnChildren: true}, `\HasChildren \Noselect`, `\HasNoChildren`, `\HasNoChildren`},
		{"RETURN (SUBSCRIBED)", &imap.ListOptions{ReturnSubscribed: true}, `\Noselect`, ``, `\Subscribed`},
		{"(SUBSCRIBED)", &imap.ListOptions{SelectSubscribed: true}, `-`, `-`, `\Subscribed`},
		{"(SPECIAL-USE)", &imap.ListOptions{SelectSpecialUse: true}, `-`, `-`, `\Sent`},
	}
	c := a.Client(t)
	for _, tt := range tests {
		if !a.Dovecot && tt.parent != "-" {
			// devmail's CREATE makes the missing parent a real folder
			// (RFC 3501 says it SHOULD); Dovecot leaves it \Noselect.
			tt.parent = strings.TrimSpace(strings.ReplaceAll(tt.parent, `\Noselect`, ""))
		}
		boxes, err := c.List("", "*", tt.options).Collect()
		if err != nil {
			t.Fatalf("List(%s) = %v", tt.name, err)
		}
		got := map[string]string{}
		for _, b := range boxes {
			got[b.Mailbox] = attrString(b.Attrs)
		}
		for folder, want := range map[string]string{parent: tt.parent, child: tt.child, "Sent": tt.sent} {
			g, ok := got[folder]
			if !ok {
				g = "-"
			}
			if g != strings.ToLower(want) {
				t.Errorf("List(%s) %q attrs = %q, want %q", tt.name, folder, g, strings.ToLower(want))
			}
		}
	}
}

// attrString is attrs sorted, lower-cased and joined by spaces, without
// \Marked and \Unmarked, which Dovecot sends or not depending on the
// directories' times.
func attrString(attrs []imap.MailboxAttr) string {
	var s []string
	for _, a := range attrs {
		if l := strings.ToLower(string(a)); l != `\marked` && l != `\unmarked` {
			s = append(s, l)
		}
	}
	slices.Sort(s)
	return strings.Join(s, " ")
}

func TestRenameMovesChildren(t *testing.T) {
	a := NewAccount(t)
	a.CreateFolder(t, "Old")
	a.CreateFolder(t, "Old/Child")
	uid := a.Append(t, "Old/Child", []byte(testMessage), `\Seen`)
	c := a.Client(t)
	if err := c.Rename("Old", "New", nil).Wait(); err != nil {
		t.Fatalf("Rename() = %v", err)
	}
	if got := a.Flags(t, "New/Child", uid); !slices.Equal(got, []string{`\Seen`}) {
		t.Errorf("Flags(New/Child) = %q, want [\\Seen]", got)
	}
	if _, err := c.Status("Old/Child", &imap.StatusOptions{NumMessages: true}).Wait(); err == nil {
		t.Errorf("Status(Old/Child) = nil error, want the folder gone")
	}
}

func TestMoveToArchive(t *testing.T) {
	a := NewAccount(t)
	uid := a.Append(t, "INBOX", []byte(testMessage), `\Flagged`)
	c := a.Client(t)
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		t.Fatalf("Select() = %v", err)
	}
	md, err := c.Move(imap.UIDSetNum(imap.UID(uid)), "Archive").Wait()
	if err != nil {
		t.Fatalf("Move() = %v", err)
	}
	set, _ := md.DestUIDs.(imap.UIDSet)
	dest, ok := set.Nums()
	if !ok || len(dest) != 1 {
		t.Fatalf("Move() dest UIDs = %v, want one (COPYUID)", md.DestUIDs)
	}
	if got := a.Flags(t, "Archive", uint32(dest[0])); !slices.Equal(got, []string{`\Flagged`}) {
		t.Errorf("Flags(Archive) = %q, want [\\Flagged]", got)
	}
}

func TestIdleSeesAppend(t *testing.T) {
	a := NewAccount(t)
	exists := make(chan uint32, 16)
	opts := &imapclient.Options{UnilateralDataHandler: &imapclient.UnilateralDataHandler{
		Mailbox: func(d *imapclient.UnilateralDataMailbox) {
			if d.NumMessages != nil {
				select {
				case exists <- *d.NumMessages:
				default:
				}
			}
		},
	}}
	ic := dialWith(t, a, opts)
	if _, err := ic.Select("INBOX", nil).Wait(); err != nil {
		t.Fatalf("Select() = %v", err)
	}
	idle, err := ic.Idle()
	if err != nil {
		t.Fatalf("Idle() = %v", err)
	}
	a.Append(t, "INBOX", []byte(testMessage))
	select {
	case n := <-exists:
		if n != 1 {
			t.Errorf("EXISTS = %d, want 1", n)
		}
	case <-time.After(20 * time.Second): // a bound, not a timing assertion
		t.Errorf("no EXISTS within 20 s of the APPEND")
	}
	if err := idle.Close(); err != nil {
		t.Fatalf("Idle.Close() = %v", err)
	}
	if err := idle.Wait(); err != nil {
		t.Errorf("Idle.Wait() = %v", err)
	}
}

func TestAccountsAreIsolated(t *testing.T) {
	a, b := NewAccount(t), NewAccount(t)
	a.Append(t, "INBOX", []byte(testMessage))
	st, err := b.Client(t).Status("INBOX", &imap.StatusOptions{NumMessages: true}).Wait()
	if err != nil {
		t.Fatalf("Status() = %v", err)
	}
	if *st.NumMessages != 0 {
		t.Errorf("second account INBOX = %d messages, want 0", *st.NumMessages)
	}
}

func TestWrongPassword(t *testing.T) {
	a := NewAccount(t)
	c, err := a.dial()
	if err != nil {
		t.Fatalf("dial() = %v", err)
	}
	defer c.Close()
	err = c.Login(a.Username, a.Password+"x").Wait()
	var ie *imap.Error
	if !errors.As(err, &ie) || ie.Type != imap.StatusResponseTypeNo {
		t.Errorf("Login(wrong password) = %v, want NO", err)
	}
}

// dialWith is Client with extra client options.
func dialWith(t *testing.T, a *Account, opts *imapclient.Options) *imapclient.Client {
	t.Helper()
	c, err := a.dialOpts(opts)
	if err != nil {
		t.Fatalf("dial() = %v", err)
	}
	if err := c.Login(a.Username, a.Password).Wait(); err != nil {
		t.Fatalf("Login() = %v", err)
	}
	t.Cleanup(func() { logout(c) })
	return c
}

// TestTLS checks the tier's certificates: STARTTLS on the plain port and
// implicit TLS on the TLS port verify against CAFile (and only with it).
// In-process the server speaks plain text only.
func TestTLS(t *testing.T) {
	a := NewAccount(t)
	opts := &imapclient.Options{Dialer: &net.Dialer{Timeout: dialTimeout}}
	if !a.Dovecot {
		c, err := imapclient.DialStartTLS(a.Addr(), opts)
		if err == nil {
			c.Close()
			t.Fatalf("DialStartTLS(in-process) = nil error, want no STARTTLS")
		}
		return
	}
	cfg, err := a.tlsConfig()
	if err != nil {
		t.Fatalf("tlsConfig() = %v", err)
	}
	tlsAddr := net.JoinHostPort(a.Host, strconv.Itoa(a.TLSPort))
	tests := []struct {
		name    string
		dial    func(addr string, o *imapclient.Options) (*imapclient.Client, error)
		addr    string
		cfg     *tls.Config
		wantErr bool
	}{
		{"STARTTLS with the CA", imapclient.DialStartTLS, a.Addr(), cfg, false},
		{"implicit TLS with the CA", imapclient.DialTLS, tlsAddr, cfg, false},
		{"implicit TLS with system roots", imapclient.DialTLS, tlsAddr, &tls.Config{ServerName: a.Host}, true},
	}
	for _, tt := range tests {
		o := *opts
		o.TLSConfig = tt.cfg
		c, err := tt.dial(tt.addr, &o)
		if err == nil {
			err = c.Login(a.Username, a.Password).Wait()
			logout(c)
		}
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: dial+login = %v, want error %v", tt.name, err, tt.wantErr)
		}
	}
}

func TestESearch(t *testing.T) {
	a := NewAccount(t)
	var unseen []imap.UID
	for i, flags := range [][]string{{`\Seen`}, nil, nil} {
		uid := a.Append(t, "INBOX", []byte(strings.Replace(testMessage, "hello", "hello "+strconv.Itoa(i), 1)), flags...)
		if flags == nil {
			unseen = append(unseen, imap.UID(uid))
		}
	}
	c := a.Client(t)
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		t.Fatalf("Select() = %v", err)
	}
	d, err := c.UIDSearch(&imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}},
		&imap.SearchOptions{ReturnCount: true, ReturnMax: true, ReturnAll: true}).Wait()
	if err != nil {
		t.Fatalf("UIDSearch(UNSEEN) = %v", err)
	}
	if d.Count != 2 || d.Max != uint32(unseen[1]) || !slices.Equal(d.AllUIDs(), unseen) {
		t.Errorf("UIDSearch(UNSEEN) = count %d max %d all %v, want 2, %d, %v", d.Count, d.Max, d.AllUIDs(), unseen[1], unseen)
	}
}

func hasAttr(attrs []imap.MailboxAttr, want imap.MailboxAttr) bool {
	for _, a := range attrs {
		if strings.EqualFold(string(a), string(want)) {
			return true
		}
	}
	return false
}
