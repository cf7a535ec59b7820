package smtp_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"

	"github.com/email-mcp/email-mcp/smtp"
)

// bytesAttachment serves data from memory.
func bytesAttachment(name string, data []byte) smtp.Attachment {
	return smtp.Attachment{
		Filename: name, ContentType: "application/octet-stream", Size: int64(len(data)),
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
	}
}

// write returns m's bytes.
func write(t *testing.T, m *smtp.Message) []byte {
	t.Helper()
	var b bytes.Buffer
	n, err := m.WriteTo(&b)
	if err != nil {
		t.Fatalf("WriteTo() = %v", err)
	}
	if n != int64(b.Len()) {
		t.Fatalf("WriteTo() = %d bytes, wrote %d", n, b.Len())
	}
	return b.Bytes()
}

// topHeader reads the message header fields' keys, in order.
func topHeader(t *testing.T, raw []byte) (textproto.Header, []string) {
	t.Helper()
	h, err := textproto.ReadHeader(bufio.NewReader(bytes.NewReader(raw)))
	if err != nil {
		t.Fatalf("ReadHeader() = %v", err)
	}
	var keys []string
	for f := h.Fields(); f.Next(); {
		keys = append(keys, f.Key())
	}
	return h, keys
}

// part is one leaf of a parsed message.
type part struct {
	typ, filename, body string
	attachment          bool
}

// parse reads raw with go-message's mail reader.
func parse(t *testing.T, raw []byte) (*mail.Reader, []part) {
	t.Helper()
	mr, err := mail.CreateReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("CreateReader() = %v", err)
	}
	var parts []part
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("NextPart() = %v", err)
		}
		body, err := io.ReadAll(p.Body)
		if err != nil {
			t.Fatalf("read part: %v", err)
		}
		switch h := p.Header.(type) {
		case *mail.InlineHeader:
			typ, _, _ := h.ContentType()
			parts = append(parts, part{typ: typ, body: string(body)})
		case *mail.AttachmentHeader:
			typ, _, _ := h.ContentType()
			name, _ := h.Filename()
			parts = append(parts, part{typ: typ, filename: name, body: string(body), attachment: true})
		}
	}
	return mr, parts
}

func TestStructure(t *testing.T) {
	att := bytesAttachment("a.txt", []byte("attached"))
	tests := []struct {
		name      string
		text      string
		html      string
		atts      []smtp.Attachment
		wantTop   string
		wantParts []string
	}{
		{"text only", "hello", "", nil, "text/plain", []string{"text/plain"}},
		{"html only", "", "<p>hi</p>", nil, "text/html", []string{"text/html"}},
		{"text and html", "hello", "<p>hi</p>", nil, "multipart/alternative", []string{"text/plain", "text/html"}},
		{"text and attachment", "hello", "", []smtp.Attachment{att}, "multipart/mixed", []string{"text/plain", "application/octet-stream"}},
		{"both and attachment", "hello", "<p>hi</p>", []smtp.Attachment{att}, "multipart/mixed",
			[]string{"text/plain", "text/html", "application/octet-stream"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testMessage()
			m.Text, m.HTML, m.Attachments = tt.text, tt.html, tt.atts
			raw := write(t, m)
			mr, parts := parse(t, raw)
			top, _, _ := mr.Header.ContentType()
			if top != tt.wantTop {
				t.Errorf("top Content-Type = %q, want %q", top, tt.wantTop)
			}
			var types []string
			for _, p := range parts {
				types = append(types, p.typ)
			}
			if !slices.Equal(types, tt.wantParts) {
				t.Errorf("parts = %q, want %q", types, tt.wantParts)
			}
			if strings.Contains(string(raw), "\n") && strings.Count(string(raw), "\n") != strings.Count(string(raw), "\r\n") {
				t.Error("message has a bare LF")
			}
			if tt.text != "" && tt.html != "" {
				want := []part{{typ: "text/plain", body: "hello"}, {typ: "text/html", body: "<p>hi</p>"}}
				if !slices.Equal(parts[:2], want) {
					t.Errorf("alternative parts = %+v, want %+v", parts[:2], want)
				}
			}
		})
	}
}

func TestHeadersRoundTrip(t *testing.T) {
	date := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	m := &smtp.Message{
		From:       smtp.Address{Name: "Jürgen Müller", Email: "j@example.com"},
		To:         []smtp.Address{{Name: "Doe, John", Email: "john@example.com"}},
		Cc:         []smtp.Address{{Email: "cc@example.com"}},
		Bcc:        []smtp.Address{{Name: "Secret", Email: "hidden@example.com"}},
		ReplyTo:    []smtp.Address{{Email: "replies@example.com"}},
		Subject:    "Grüße – Q3 📈 " + strings.Repeat("long subject words ", 8),
		Text:       "Grüße\n.\nA line with a dot above.\n" + strings.Repeat("x", 300) + "\n",
		InReplyTo:  "<parent@example.com>",
		References: []string{"root@example.com", "parent@example.com"},
		Date:       date,
		Domain:     "mcp.example.com",
		Attachments: []smtp.Attachment{
			bytesAttachment("Rechnung März.pdf", []byte("%PDF-1.4 fake")),
			{Filename: "notes.txt", ContentType: "text/plain; charset=utf-8", Size: 5,
				Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("notes")), nil }},
		},
	}
	raw := write(t, m)
	mr, parts := parse(t, raw)
	h := mr.Header

	if subj, err := h.Subject(); err != nil || subj != m.Subject {
		t.Errorf("Subject() = %q, %v; want %q", subj, err, m.Subject)
	}
	from, _ := h.AddressList("From")
	to, _ := h.AddressList("To")
	if len(from) != 1 || from[0].Name != "Jürgen Müller" || len(to) != 1 || to[0].Name != "Doe, John" {
		t.Errorf("From %v To %v: names did not round-trip", from, to)
	}
	if d, err := h.Date(); err != nil || !d.Equal(date) {
		t.Errorf("Date() = %v, %v; want %v", d, err, date)
	}
	if id, _ := h.MessageID(); id != m.ID() || !strings.HasSuffix(id, "@mcp.example.com") {
		t.Errorf("MessageID() = %q, want %q on the domain", id, m.ID())
	}
	irt, _ := h.MsgIDList("In-Reply-To")
	refs, _ := h.MsgIDList("References")
	if !slices.Equal(irt, []string{"parent@example.com"}) || !slices.Equal(refs, []string{"root@example.com", "parent@example.com"}) {
		t.Errorf("In-Reply-To %q References %q", irt, refs)
	}
	if h.Has("Bcc") || bytes.Contains(raw, []byte("hidden@example.com")) {
		t.Error("the Bcc address is in the message")
	}
	if got := m.Envelope().To; !slices.Contains(got, "hidden@example.com") {
		t.Errorf("Envelope().To = %v, want the Bcc address", got)
	}
	if h.Get("Mime-Version") != "1.0" || h.Get("Reply-To") != "<replies@example.com>" {
		t.Errorf("MIME-Version %q Reply-To %q", h.Get("Mime-Version"), h.Get("Reply-To"))
	}
	if len(parts) != 3 || parts[0].body != strings.ReplaceAll(m.Text, "\n", "\r\n") {
		t.Fatalf("parts = %+v, want the text and two attachments", parts)
	}
	if parts[1].filename != "Rechnung März.pdf" || parts[1].body != "%PDF-1.4 fake" || !parts[1].attachment {
		t.Errorf("attachment = %+v, want Rechnung März.pdf", parts[1])
	}
	if !bytes.Contains(raw, []byte(`filename*=utf-8''Rechnung%20M%C3%A4rz.pdf`)) {
		t.Error("the file name is not RFC 2231 encoded")
	}
	if parts[2].typ != "text/plain" || parts[2].body != "notes" {
		t.Errorf("second attachment = %+v", parts[2])
	}
	for i, line := range strings.Split(string(raw), "\r\n") {
		if len(line) > 78 {
			t.Errorf("line %d is %d bytes long: %q", i, len(line), line)
		}
	}
}

func TestWriteToIsDeterministic(t *testing.T) {
	m := testMessage()
	m.HTML = "<p>Hi there.</p>"
	m.Attachments = []smtp.Attachment{bytesAttachment("a.bin", bytes.Repeat([]byte{0, 1, 2, 255}, 1000))}
	first := write(t, m)
	if m.Date.IsZero() || m.MessageID == "" {
		t.Errorf("after WriteTo: Date %v, MessageID %q; want both fixed", m.Date, m.MessageID)
	}
	second := write(t, m)
	if !bytes.Equal(first, second) {
		t.Errorf("two WriteTo calls differ:\n%s\n---\n%s", first, second)
	}
	size, err := m.Size()
	if err != nil || size != int64(len(first)) {
		t.Errorf("Size() = %d, %v; want %d", size, err, len(first))
	}
	if other := testMessage(); other.ID() == m.ID() {
		t.Error("two messages got the same Message-ID")
	}
}

func TestSizeMatchesEveryShape(t *testing.T) {
	for n := range 160 {
		m := testMessage()
		m.Attachments = []smtp.Attachment{bytesAttachment("f", bytes.Repeat([]byte("z"), n*7))}
		if n%2 == 0 {
			m.HTML = "<b>x</b>"
		}
		raw := write(t, m)
		if size, err := m.Size(); err != nil || size != int64(len(raw)) {
			t.Fatalf("attachment of %d bytes: Size() = %d, %v; want %d", n*7, size, err, len(raw))
		}
	}
}

func TestAttachmentContentMustMatchSize(t *testing.T) {
	m := testMessage()
	a := bytesAttachment("a.txt", []byte("12345"))
	a.Size = 3
	m.Attachments = []smtp.Attachment{a}
	if _, err := m.WriteTo(io.Discard); !errors.Is(err, smtp.ErrInvalidArgument) {
		t.Errorf("WriteTo() with a wrong Size = %v, want ErrInvalidArgument", err)
	}
	a.Open = func() (io.ReadCloser, error) { return nil, errors.New("gone") }
	a.Size = 5
	m.Attachments = []smtp.Attachment{a}
	if _, err := m.WriteTo(io.Discard); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("WriteTo() with a failing Open = %v, want its error", err)
	}
}

func TestAttachmentIsStreamed(t *testing.T) {
	const size = 32 << 20
	m := testMessage()
	m.Attachments = []smtp.Attachment{{
		Filename: "big.bin", Size: size,
		Open: func() (io.ReadCloser, error) { return io.NopCloser(io.LimitReader(zeros{}, size)), nil },
	}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n, err := m.WriteTo(io.Discard)
	runtime.ReadMemStats(&after)
	if err != nil || n < size {
		t.Fatalf("WriteTo() = %d, %v", n, err)
	}
	// Reading the file whole would allocate at least size. What is allocated
	// is go-message's base64 line wrapper: a few bytes per 76-character line
	// (16 under -race, which turns off the tiny allocator).
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/2 {
		t.Errorf("composing a %d MB attachment allocated %d bytes, want it streamed (< %d)", size>>20, alloc, size/2)
	}
}

// zeros reads zero bytes forever.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestContentTypeOfAttachment(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "application/octet-stream"},
		{"application/pdf", "application/pdf"},
		{"text/plain; charset=iso-8859-1", "text/plain"},
	}
	for _, tt := range tests {
		m := testMessage()
		a := bytesAttachment("x", []byte("data"))
		a.ContentType = tt.in
		m.Attachments = []smtp.Attachment{a}
		_, parts := parse(t, write(t, m))
		if len(parts) != 2 || parts[1].typ != tt.want {
			t.Errorf("ContentType %q: parts %+v, want an attachment of %q", tt.in, parts, tt.want)
		}
	}
}

func TestParseAddress(t *testing.T) {
	tests := []struct {
		in      string
		want    smtp.Address
		wantErr bool
	}{
		{"a@example.com", smtp.Address{Email: "a@example.com"}, false},
		{"<a@example.com>", smtp.Address{Email: "a@example.com"}, false},
		{"Ann Lee <a@example.com>", smtp.Address{Name: "Ann Lee", Email: "a@example.com"}, false},
		{`"Lee, Ann" <a@example.com>`, smtp.Address{Name: "Lee, Ann", Email: "a@example.com"}, false},
		{"=?utf-8?q?J=C3=BCrgen?= <j@example.com>", smtp.Address{Name: "Jürgen", Email: "j@example.com"}, false},
		{"=?utf-8?q?a=0D=0Ab?= <x@example.com>", smtp.Address{}, true},
		{"a@example.com\r\nBcc: b@example.com", smtp.Address{}, true},
		{"a@example.com\x00", smtp.Address{}, true},
		{"not an address", smtp.Address{}, true},
		{"", smtp.Address{}, true},
		{"a@example.com, b@example.com", smtp.Address{}, true},
	}
	for _, tt := range tests {
		got, err := smtp.ParseAddress(tt.in)
		if tt.wantErr {
			if !errors.Is(err, smtp.ErrInvalidArgument) {
				t.Errorf("ParseAddress(%q) = %v, %v; want ErrInvalidArgument", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseAddress(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseAddressList(t *testing.T) {
	got, err := smtp.ParseAddressList([]string{"a@example.com", `Bo <b@example.com>, "C, D" <c@example.com>`})
	want := []smtp.Address{{Email: "a@example.com"}, {Name: "Bo", Email: "b@example.com"}, {Name: "C, D", Email: "c@example.com"}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseAddressList() = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range [][]string{{""}, {"a@example.com", "b@example.com\n"}, {"nope"}} {
		if _, err := smtp.ParseAddressList(bad); !errors.Is(err, smtp.ErrInvalidArgument) {
			t.Errorf("ParseAddressList(%q) = %v, want ErrInvalidArgument", bad, err)
		}
	}
	if got, err := smtp.ParseAddressList(nil); got != nil || err != nil {
		t.Errorf("ParseAddressList(nil) = %v, %v; want nil, nil", got, err)
	}
}

func TestValidateRequiresSenderAndRecipient(t *testing.T) {
	m := &smtp.Message{Subject: "x"}
	err := m.Validate()
	if !errors.Is(err, smtp.ErrInvalidArgument) || !strings.Contains(err.Error(), "from") || !strings.Contains(err.Error(), "recipient") {
		t.Errorf("Validate() = %v, want ErrInvalidArgument naming from and the recipients", err)
	}
	m = &smtp.Message{From: smtp.Address{Email: "a@example.com"}, Bcc: []smtp.Address{{Email: "b@example.com"}}}
	if err := m.Validate(); err != nil {
		t.Errorf("Validate() with only a Bcc = %v, want nil", err)
	}
	if _, keys := topHeader(t, write(t, m)); slices.Contains(keys, "To") || slices.Contains(keys, "Bcc") {
		t.Errorf("header keys %q: want neither To nor Bcc", keys)
	}
}

func TestMimeEncodedWordsStayInTheirField(t *testing.T) {
	// An encoded subject decodes inside Subject; it never becomes a field.
	m := testMessage()
	m.Subject = "=?utf-8?q?x=0D=0ABcc:_evil@example.com?="
	h, keys := topHeader(t, write(t, m))
	want := []string{"Date", "From", "To", "Cc", "Subject", "Message-Id", "Mime-Version", "Content-Type", "Content-Transfer-Encoding"}
	if !slices.Equal(keys, want) {
		t.Errorf("header keys = %q, want %q", keys, want)
	}
	dec := new(mime.WordDecoder)
	if s, err := dec.DecodeHeader(h.Get("Subject")); s != m.Subject || err != nil {
		t.Errorf("Subject decodes to %q, %v; want the literal %q", s, err, m.Subject)
	}
}

func TestTextThatLooksEncodedStaysLiteral(t *testing.T) {
	m := testMessage()
	m.Subject = "Re: =?utf-8?q?a=0D=0Ab?= and more"
	m.To[0].Name = "=?utf-8?q?Mallory=0D=0A?="
	mr, _ := parse(t, write(t, m))
	if s, err := mr.Header.Subject(); s != m.Subject || err != nil {
		t.Errorf("Subject() = %q, %v; want %q", s, err, m.Subject)
	}
	to, err := mr.Header.AddressList("To")
	if err != nil || len(to) != 2 || to[0].Name != m.To[0].Name {
		t.Errorf("To = %v, %v; want the name %q literally", to, err, m.To[0].Name)
	}
}
