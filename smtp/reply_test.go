package smtp_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/smtp"
)

func TestReplySubject(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Hello", "Re: Hello"},
		{"Re: Hello", "Re: Hello"},
		{"re: Hello", "Re: Hello"},
		{"RE: Hello", "Re: Hello"},
		{"Re: Re: RE: Hello", "Re: Hello"},
		{"Re[2]: Hello", "Re: Hello"},
		{"Re(3): Hello", "Re: Hello"},
		{"Re : Hello", "Re: Hello"},
		{"AW: Hello", "Re: Hello"},
		{"SV: Re: Hello", "Re: Hello"},
		{"Antw: Hello", "Re: Hello"},
		{"Fwd: Hello", "Re: Fwd: Hello"},
		{"Re: Fwd: Re: Hello", "Re: Fwd: Re: Hello"},
		{"Regarding: Hello", "Re: Regarding: Hello"},
		{"Reply needed", "Re: Reply needed"},
		{"  Re:Hello  ", "Re: Hello"},
		{"", "Re:"},
		{"Re:", "Re:"},
		{"Grüße", "Re: Grüße"},
	}
	for _, tt := range tests {
		if got := smtp.ReplySubject(tt.in); got != tt.want {
			t.Errorf("ReplySubject(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestReplyThread(t *testing.T) {
	tests := []struct {
		name      string
		refs, irt []string
		id        string
		wantIRT   string
		want      []string
	}{
		{"first reply", nil, nil, "p@x", "p@x", []string{"p@x"}},
		{"chain kept", []string{"a@x", "b@x"}, nil, "p@x", "p@x", []string{"a@x", "b@x", "p@x"}},
		{"brackets stripped", []string{"<a@x>", "<b@x>"}, nil, "<p@x>", "p@x", []string{"a@x", "b@x", "p@x"}},
		{"one raw header value", []string{"<a@x> <b@x>\t<c@x>"}, nil, "p@x", "p@x", []string{"a@x", "b@x", "c@x", "p@x"}},
		{"repeats dropped, order kept", []string{"a@x", "b@x", "a@x"}, nil, "p@x", "p@x", []string{"a@x", "b@x", "p@x"}},
		{"parent moved last", []string{"p@x", "a@x"}, nil, "p@x", "p@x", []string{"a@x", "p@x"}},
		{"invalid ids dropped", []string{"no-at-sign", "a@x", "<>"}, nil, "p@x", "p@x", []string{"a@x", "p@x"}},
		{"no parent id", []string{"a@x"}, nil, "", "", []string{"a@x"}},
		// RFC 5322 3.6.4: no References, an In-Reply-To with one id.
		{"grandparent from In-Reply-To", nil, []string{"g@x"}, "p@x", "p@x", []string{"g@x", "p@x"}},
		{"In-Reply-To with two ids ignored", nil, []string{"g@x", "h@x"}, "p@x", "p@x", []string{"p@x"}},
		{"References win over In-Reply-To", []string{"a@x"}, []string{"g@x"}, "p@x", "p@x", []string{"a@x", "p@x"}},
		// A Message-ID no message can carry is left out: the reply is sent unthreaded.
		{"parent id without @", []string{"a@x"}, nil, "<20240319.4711.mailer>", "", []string{"a@x"}},
	}
	for _, tt := range tests {
		irt, refs := smtp.ReplyThread(tt.refs, tt.irt, tt.id)
		if irt != tt.wantIRT || !slices.Equal(refs, tt.want) {
			t.Errorf("%s: ReplyThread(%q, %q, %q) = %q, %q; want %q, %q", tt.name, tt.refs, tt.irt, tt.id, irt, refs, tt.wantIRT, tt.want)
		}
	}
}

func addrs(emails ...string) []smtp.Address {
	out := make([]smtp.Address, len(emails))
	for i, e := range emails {
		out[i] = smtp.Address{Email: e}
	}
	return out
}

func emails(list []smtp.Address) []string {
	out := []string{}
	for _, a := range list {
		out = append(out, a.Email)
	}
	return out
}

func TestReplyRecipients(t *testing.T) {
	self := []string{"Me@Example.com"}
	tests := []struct {
		name   string
		orig   smtp.Original
		all    bool
		to, cc []string
	}{
		{"reply goes to From", smtp.Original{From: addrs("a@x"), To: addrs("me@example.com", "b@x")}, false,
			[]string{"a@x"}, []string{}},
		{"Reply-To wins over From", smtp.Original{From: addrs("a@x"), ReplyTo: addrs("list@x"), To: addrs("me@example.com")}, false,
			[]string{"list@x"}, []string{}},
		{"reply-all adds To and Cc without me", smtp.Original{From: addrs("a@x"), To: addrs("ME@example.com", "b@x"), Cc: addrs("c@x", "me@example.com")}, true,
			[]string{"a@x", "b@x"}, []string{"c@x"}},
		{"reply-all de-duplicates case-insensitively", smtp.Original{From: addrs("a@x"), To: addrs("A@X", "b@x"), Cc: addrs("B@x", "c@x", "c@x")}, true,
			[]string{"a@x", "b@x"}, []string{"c@x"}},
		{"reply to my own message goes to its recipients", smtp.Original{From: addrs("me@example.com"), To: addrs("b@x"), Cc: addrs("c@x")}, false,
			[]string{"b@x"}, []string{}},
		{"reply-all to my own message", smtp.Original{From: addrs("me@example.com"), To: addrs("b@x"), Cc: addrs("c@x")}, true,
			[]string{"b@x"}, []string{"c@x"}},
		{"a note to self is answered to self", smtp.Original{From: addrs("me@example.com"), To: addrs("ME@example.com")}, false,
			[]string{"me@example.com"}, []string{}},
		{"no address at all", smtp.Original{}, true, []string{}, []string{}},
		{"my sub-addresses and a final dot are me", smtp.Original{From: addrs("a@x"), To: addrs("me+signup@example.com", "Me+X@EXAMPLE.COM", "me@example.com."), Cc: addrs("me-not@example.com")}, true,
			[]string{"a@x"}, []string{"me-not@example.com"}},
		{"an IDN domain and its punycode are one address", smtp.Original{From: addrs("a@bücher.example"), To: addrs("A@xn--bcher-kva.example", "b@BÜCHER.example", "b@xn--bcher-kva.example.")}, true,
			[]string{"a@bücher.example", "b@BÜCHER.example"}, []string{}},
	}
	for _, tt := range tests {
		to, cc := smtp.ReplyRecipients(tt.orig, self, tt.all)
		if !slices.Equal(emails(to), tt.to) || !slices.Equal(emails(cc), tt.cc) {
			t.Errorf("%s: ReplyRecipients() = to %q cc %q, want to %q cc %q", tt.name, emails(to), emails(cc), tt.to, tt.cc)
		}
	}
}

func TestKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Bob@Example.COM", "bob@example.com"},
		{" bob@example.com. ", "bob@example.com"},
		{"bob@Bücher.Example", "bob@xn--bcher-kva.example"},
		{"bob@xn--BCHER-kva.example", "bob@xn--bcher-kva.example"},
		{"bob@[127.0.0.1]", "bob@[127.0.0.1]"},
		{"Jörg@example.com", "jörg@example.com"},
		{"no-at", "no-at"},
	}
	for _, tt := range tests {
		if got := smtp.Key(tt.in); got != tt.want {
			t.Errorf("Key(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestQuoteBody(t *testing.T) {
	tests := []struct{ text, attribution, want string }{
		{"Hi\nthere", "On X, A wrote:", "On X, A wrote:\n> Hi\n> there\n"},
		{"Hi\r\n\r\n> earlier\r\n", "", "> Hi\n>\n>> earlier\n"},
		{"", "A wrote:", "A wrote:\n"},
		{"one\rtwo", "", "> one\n> two\n"},
	}
	for _, tt := range tests {
		if got := smtp.QuoteBody(tt.text, tt.attribution); got != tt.want {
			t.Errorf("QuoteBody(%q, %q) = %q, want %q", tt.text, tt.attribution, got, tt.want)
		}
	}
	date := time.Date(2025, 1, 2, 15, 4, 0, 0, time.UTC)
	if got, want := smtp.Attribution(date, smtp.Address{Name: "Ann", Email: "a@x"}), "On Thu, 2 Jan 2025 at 15:04 +0000, Ann <a@x> wrote:"; got != want {
		t.Errorf("Attribution() = %q, want %q", got, want)
	}
	if got, want := smtp.Attribution(time.Time{}, smtp.Address{Email: "a@x"}), "a@x wrote:"; got != want {
		t.Errorf("Attribution(zero) = %q, want %q", got, want)
	}
}

func TestReplyThreadingOnParsedBytes(t *testing.T) {
	orig := &smtp.Message{
		From:       smtp.Address{Name: "Ann", Email: "ann@example.com"},
		To:         addrs(testUser),
		Subject:    "RE: Re: Grüße",
		Text:       "Original text",
		References: []string{"root@example.com"},
		InReplyTo:  "root@example.com",
	}
	origRaw := write(t, orig)
	mr, _ := parse(t, origRaw)
	origID, _ := mr.Header.MessageID()
	origRefs, _ := mr.Header.MsgIDList("References")
	origIRT, _ := mr.Header.MsgIDList("In-Reply-To")
	origSubject, _ := mr.Header.Subject()
	inReplyTo, chain := smtp.ReplyThread(origRefs, origIRT, origID)

	to, cc := smtp.ReplyRecipients(smtp.Original{From: []smtp.Address{orig.From}, To: orig.To}, []string{testUser}, true)
	reply := &smtp.Message{
		From:       smtp.Address{Email: testUser},
		To:         to,
		Cc:         cc,
		Subject:    smtp.ReplySubject(origSubject),
		Text:       "Thanks!\n\n" + smtp.QuoteBody(orig.Text, smtp.Attribution(orig.Date, orig.From)),
		InReplyTo:  inReplyTo,
		References: chain,
	}
	rr, parts := parse(t, write(t, reply))
	subj, _ := rr.Header.Subject()
	irt, _ := rr.Header.MsgIDList("In-Reply-To")
	refs, _ := rr.Header.MsgIDList("References")
	gotTo, _ := rr.Header.AddressList("To")
	if subj != "Re: Grüße" {
		t.Errorf("Subject = %q, want %q", subj, "Re: Grüße")
	}
	if !slices.Equal(irt, []string{origID}) || !slices.Equal(refs, []string{"root@example.com", origID}) {
		t.Errorf("In-Reply-To %q References %q; want [%s] and [root@example.com %s]", irt, refs, origID, origID)
	}
	if len(gotTo) != 1 || gotTo[0].Address != "ann@example.com" || rr.Header.Has("Cc") {
		t.Errorf("To %v Cc %q; want only ann@example.com", gotTo, rr.Header.Get("Cc"))
	}
	lines := strings.Split(parts[0].body, "\r\n")
	if len(parts) != 1 || len(lines) < 4 || !strings.HasSuffix(lines[2], "Ann <ann@example.com> wrote:") || lines[3] != "> Original text" {
		t.Errorf("body = %q, want the attribution and the quote", parts[0].body)
	}
}
