package message_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/message"
)

// emlCase is what a testdata file must decode to.
type emlCase struct {
	subject   string
	fromName  string
	fromEmail string
	messageID string
	date      string // RFC 3339; "" for the zero time
	html      bool   // Bodies.HTML is set
	fromHTML  bool   // Bodies.TextFromHTML
	textHas   []string
	textNot   []string
}

var emlCases = map[string]emlCase{
	"gmail-alternative.eml": {
		subject: "Re: Lunch on Thursday?", fromName: "Alice Example", fromEmail: "alice.example@gmail.com",
		messageID: "CAF9aBcD+eFgH1jK2LmNoPqRsTuVwXyZ0123456789@mail.gmail.com", date: "2024-03-12T17:15:30+01:00",
		html:    true,
		textHas: []string{"Thursday works for me — let’s meet at the café at 12:30.", "> Are you free for lunch on Thursday?"},
		textNot: []string{"=E2", "=\n", "<div"},
	},
	"newsletter-html-only.eml": {
		subject: "Spring sale: 30% off everything 🌷", fromName: "Shop Example", fromEmail: "news@shop.example",
		messageID: "20240320080000.1a2b3c@mail.shop.example", date: "2024-03-20T08:00:00Z",
		html: true, fromHTML: true,
		textHas: []string{
			"Spring sale: 30% off everything\n",
			"Use code SPRING30 at checkout.",
			"- Free shipping over €50\n- Returns within 30 days",
			"Shop the sale (https://shop.example/sale?utm_campaign=spring)",
			"[image: Shop Example] (https://shop.example/?utm_source=newsletter)",
			"View in browser (https://shop.example/view/42)",
			"Sneakers | €59.00\nRain jacket | €89.00",
			"Unsubscribe (https://shop.example/u/42?t=abc) · Privacy policy (https://shop.example/privacy)",
		},
		textNot: []string{"Last chance", "ends Sunday", "Spring sale\n", "open/42.gif", "margin", "!important", "mso", "\u200c"},
	},
	"latin1-qp.eml": {
		subject: "Grüße aus München", fromName: "Jürgen Müller", fromEmail: "juergen.mueller@example.de",
		messageID: "20240301092030.GA12345@example.de", date: "2024-03-01T10:20:30+01:00",
		textHas: []string{"Hallo Renée,", "vielen Dank für die Grüße. Das Wetter in München ist schön, und der Biergarten öffnet nächste Woche.", "Schöne Grüße\nJürgen"},
		textNot: []string{"=FC", "\r"},
	},
	"windows-1252.eml": {
		subject: "Budget “final” – €12,500", fromName: "O'Brien, Sean", fromEmail: "sean.obrien@example.ie",
		messageID: "AM0PR07MB1234ABCD5678EF90@AM0PR07MB1234.eurprd07.prod.outlook.com", date: "2024-03-04T14:05:11Z",
		html:    true,
		textHas: []string{"The “final” budget is €12,500 – that’s 5% under plan.", "Thanks,\nSean"},
		textNot: []string{"\ufffd", "=93"},
	},
	"iso-2022-jp.eml": {
		subject: "会議の日程について", fromName: "山田太郎", fromEmail: "taro.yamada@example.co.jp",
		messageID: "20240319103000.4F2A1B@example.co.jp", date: "2024-03-19T10:30:00+09:00",
		textHas: []string{"田中様\n\nお世話になっております。山田です。\n来週の会議は水曜日の午後二時からです。", "山田太郎"},
		textNot: []string{"\x1b", "\ufffd"},
	},
	"encoded-words.eml": {
		subject: "Café ☕ Grüße from Zürich 日本", fromName: "Zähler, Zöe", fromEmail: "zoe@example.ch",
		messageID: "encoded-words-1@example.ch", date: "2024-03-11T12:00:00+01:00",
		textHas: []string{"Liebe Freunde, der Kaffee ist fertig. ☕"},
	},
	"forwarded-rfc822.eml": {
		subject: "Fwd: Quarterly report", fromName: "Dana Scully", fromEmail: "dana@example.org",
		messageID: "fwd-7d1e9a@example.org", date: "2024-03-07T11:00:00-05:00",
		textHas: []string{"Fox, see the forwarded message below."},
		textNot: []string{"INNER BODY", "multi-part message", "%PDF"},
	},
	"inline-image.eml": {
		subject: "Photo from the office party", fromName: "Erin Hannon", fromEmail: "erin@example.com",
		messageID: "8B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0@example.com", date: "2024-03-09T20:30:00-08:00",
		html:    true,
		textHas: []string{"Here is the photo from the party!"},
		textNot: []string{"iVBOR", "<html"},
	},
	"hostile-attachments.eml": {
		subject: "Invoice and documents", fromName: "Mallory", fromEmail: "mallory@attacker.example",
		messageID: "hostile-1@attacker.example", date: "2024-03-10T03:14:15Z",
		html: true, fromHTML: true,
		textHas: []string{"Please open the attached documents.\n\nRegards,\nAccounts"},
		textNot: []string{"root:x", "passwd", "MZ", "%PDF"},
	},
	"no-id-no-date.eml": {
		subject: "Cron <root@backup01> /usr/local/bin/nightly-backup.sh", fromName: "Cron Daemon", fromEmail: "root@backup01.example.net",
		textHas: []string{"Backup finished: 42 files, 1.3 GB, 0 errors."},
	},
	"malformed-from.eml": {
		subject: "Your ticket #4821 has been updated", fromName: "Doe, Jane", fromEmail: "jane.doe@example.com",
		messageID: "ticket-4821-update@helpdesk.example.com", date: "2024-03-05T09:00:00Z",
		textHas: []string{"Ticket #4821 was updated by Jane Doe.\nStatus: waiting for customer"},
	},
	"unknown-charset.eml": {
		subject: "Status report", fromName: "Legacy Monitor", fromEmail: "noreply@legacy.example",
		messageID: "status-20240313@legacy.example", date: "2024-03-13T06:00:00Z",
		textHas: []string{"Status: all services running – no incidents.", "Sensor 7 sent \ufffd (garbage byte)."},
	},
	"plain-8bit-no-mime.eml": {
		subject: "Fika på fredag?", fromName: "Alice Lindqvist", fromEmail: "alice@example.org",
		messageID: "plain-8bit-1@example.org", date: "2024-03-14T07:45:00+02:00",
		textHas: []string{"Ska vi ses på kaféet vid ån på fredag? 🙂\nÄlskar kanelbullar."},
	},
	"flowed-thunderbird.eml": {
		subject: "Notes from the meeting", fromName: "Frank Castle", fromEmail: "frank@example.net",
		messageID: "3f2e1d0c-9b8a-4765-a4b3-c2d1e0f9a8b7@example.net", date: "2024-03-15T18:22:10+01:00",
		textHas: []string{
			"This is a long paragraph that Thunderbird wrapped at seventy-two characters with a trailing space, so it must be joined again when read.",
			"> Quoted text that was also wrapped by the client.",
			"-- \nFrank",
		},
	},
}

// markup matches what must never survive in text rendered from HTML: tags,
// comments, CSS rules and declarations. ("<bob@example.com>" is text.)
var markup = regexp.MustCompile(`<!--|</?[a-zA-Z][a-zA-Z0-9:-]*(\s[^>]*)?/?>|\{[^}]*\}|[a-z-]+\s*:\s*[^;\s]+;`)

func readEML(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestTestdata(t *testing.T) {
	for name, tc := range emlCases {
		t.Run(name, func(t *testing.T) {
			raw := readEML(t, name)
			h, err := message.ParseHeader(raw)
			if err != nil {
				t.Fatalf("ParseHeader() = %v, want nil", err)
			}
			checkHeader(t, h, tc)
			b, err := message.ParseBodies(raw)
			if err != nil {
				t.Fatalf("ParseBodies() = %v, want nil", err)
			}
			checkBodies(t, b, tc)
		})
	}
}

func checkHeader(t *testing.T, h message.Header, tc emlCase) {
	t.Helper()
	if h.Subject != tc.subject {
		t.Errorf("Subject = %q, want %q", h.Subject, tc.subject)
	}
	if len(h.From) != 1 || h.From[0].Name != tc.fromName || h.From[0].Email != tc.fromEmail {
		t.Errorf("From = %+v, want [{%s %s}]", h.From, tc.fromName, tc.fromEmail)
	}
	if h.MessageID != tc.messageID {
		t.Errorf("MessageID = %q, want %q", h.MessageID, tc.messageID)
	}
	got := ""
	if !h.Date.IsZero() {
		got = h.Date.Format(time.RFC3339)
	}
	if got != tc.date {
		t.Errorf("Date = %q, want %q", got, tc.date)
	}
}

func checkBodies(t *testing.T, b message.Bodies, tc emlCase) {
	t.Helper()
	if (b.HTML != "") != tc.html {
		t.Errorf("HTML set = %v, want %v", b.HTML != "", tc.html)
	}
	if b.TextFromHTML != tc.fromHTML {
		t.Errorf("TextFromHTML = %v, want %v", b.TextFromHTML, tc.fromHTML)
	}
	for _, s := range tc.textHas {
		if !strings.Contains(b.Text, s) {
			t.Errorf("Text lacks %q; Text:\n%s", s, b.Text)
		}
	}
	for _, s := range tc.textNot {
		if strings.Contains(b.Text, s) {
			t.Errorf("Text contains %q; Text:\n%s", s, b.Text)
		}
	}
	if b.HTML != "" { // the HTML alternative renders the same main sentence, without markup
		rendered := message.HTMLToText(b.HTML)
		if !strings.Contains(rendered, tc.textHas[0]) {
			t.Errorf("HTMLToText(HTML) lacks %q; got:\n%s", tc.textHas[0], rendered)
		}
		if m := markup.FindString(rendered); m != "" {
			t.Errorf("HTMLToText(HTML) contains markup %q; got:\n%s", m, rendered)
		}
	}
	if strings.Contains(b.Text, "\r") || strings.Contains(b.HTML, "\r") {
		t.Errorf("bodies keep CR line endings")
	}
}

// TestTestdataCovered keeps the table, the files and the README in step.
func TestTestdataCovered(t *testing.T) {
	files, err := filepath.Glob("testdata/*.eml")
	if err != nil || len(files) == 0 {
		t.Fatalf("Glob() = %v, %v", files, err)
	}
	readme := string(readEML(t, "README.md"))
	for _, f := range files {
		name := filepath.Base(f)
		if _, ok := emlCases[name]; !ok {
			t.Errorf("%s has no case in emlCases", name)
		}
		if !strings.Contains(readme, "`"+name+"`") {
			t.Errorf("%s is not listed in testdata/README.md", name)
		}
		raw := readEML(t, name)
		if strings.Count(string(raw), "\n") != strings.Count(string(raw), "\r\n") {
			t.Errorf("%s has bare LF line endings", name)
		}
	}
	for name := range emlCases {
		if !slices.Contains(files, filepath.Join("testdata", name)) {
			t.Errorf("case %s has no file", name)
		}
	}
}

func TestHeaderFields(t *testing.T) {
	tests := []struct {
		file  string
		check func(h message.Header) bool
		want  string
	}{
		{"gmail-alternative.eml", func(h message.Header) bool {
			return slices.Equal(h.InReplyTo, []string{"CAB1x2y3zQ4w5E6r7T8y9U0i@mail.gmail.com"}) &&
				slices.Equal(h.References, []string{"CAB1x2y3zQ4w5E6r7T8y9U0i@mail.gmail.com"}) &&
				slices.Equal(h.Cc, []message.Address{{Email: "carol@example.org"}}) &&
				slices.Equal(h.To, []message.Address{{Name: "Bob Builder", Email: "bob@example.com"}})
		}, "In-Reply-To, References, Cc, To"},
		{"newsletter-html-only.eml", func(h message.Header) bool {
			return slices.Equal(h.ListUnsubscribe, []string{"mailto:unsubscribe@shop.example?subject=unsub-42", "https://shop.example/u/42?t=abc"})
		}, "List-Unsubscribe with mailto and https"},
		{"encoded-words.eml", func(h message.Header) bool {
			return slices.Equal(h.To, []message.Address{
				{Name: "Rémi", Email: "remi@example.fr"},
				{Name: "Björk Guðmundsdóttir", Email: "bjork@example.is"},
			})
		}, "To with a B word split inside a character"},
		{"latin1-qp.eml", func(h message.Header) bool {
			return slices.Equal(h.To, []message.Address{{Name: "Renée Dupont", Email: "renee@example.fr"}})
		}, "To in ISO-8859-1"},
		{"iso-2022-jp.eml", func(h message.Header) bool {
			return slices.Equal(h.To, []message.Address{{Name: "田中花子", Email: "hanako.tanaka@example.co.jp"}})
		}, "To in ISO-2022-JP"},
		{"malformed-from.eml", func(h message.Header) bool {
			return len(h.To) == 0 &&
				slices.Equal(h.Cc, []message.Address{{Name: "Support Team", Email: "support@helpdesk.example.com"}})
		}, "empty group To, Cc without closing bracket"},
		{"no-id-no-date.eml", func(h message.Header) bool {
			return h.MessageID == "" && h.Date.IsZero() && h.InReplyTo == nil
		}, "no Message-ID, no Date"},
	}
	for _, tc := range tests {
		h, err := message.ParseHeader(readEML(t, tc.file))
		if err != nil || !tc.check(h) {
			t.Errorf("ParseHeader(%s) = %+v, %v; want %s", tc.file, h, err, tc.want)
		}
	}
}
