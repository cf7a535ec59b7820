package message_test

import (
	"testing"

	"github.com/email-mcp/email-mcp/message"
)

func TestHiddenInHeader(t *testing.T) {
	plain := message.Header{Subject: "Hello", From: []message.Address{{Name: "Ann", Email: "ann@example.com"}}}
	if message.HiddenInHeader(plain, "report.pdf") {
		t.Errorf("HiddenInHeader(plain) = true, want false")
	}
	name := plain
	name.To = []message.Address{{Name: "Bob\u202e", Email: "bob@example.com"}}
	for what, hdr := range map[string]message.Header{"an address name": name, "the subject": {Subject: "Hi\u200b"}} {
		if !message.HiddenInHeader(hdr) {
			t.Errorf("HiddenInHeader(%s hidden) = false, want true", what)
		}
	}
	if !message.HiddenInHeader(plain, "ok.pdf", "evil\u202egpj.exe") {
		t.Errorf("HiddenInHeader(file name hidden) = false, want true")
	}
}

func TestWindowBodies(t *testing.T) {
	b := message.Bodies{Text: "ab\u200bcdef", HTML: "<p>x</p>"}
	w := message.WindowBodies(b, true, false, 1, 3)
	if w.Text != "bcd" || w.HTML != nil || !w.Hidden || w.Next != 4 {
		t.Errorf("WindowBodies(text, 1, 3) = %+v, want bcd, no HTML, hidden, next 4", w)
	}
	w = message.WindowBodies(b, true, true, 0, 5)
	if w.Text != "abcde" || w.HTML == nil || *w.HTML != "<p>x<" || w.Next != 5 {
		t.Errorf("WindowBodies(both, 0, 5) = %+v, want both windows, next 5", w)
	}
	w = message.WindowBodies(b, false, true, 0, 100)
	if w.Text != "" || w.HTML == nil || *w.HTML != "<p>x</p>" || w.Next != -1 || !w.Hidden {
		t.Errorf("WindowBodies(html, 0, 100) = %+v, want all of the HTML, next -1, the text's hidden reported", w)
	}
}
