package extract_test

import (
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/extract"
	"github.com/email-mcp/email-mcp/message"
)

// The extractors read the text read_email shows: a code or link a person
// cannot see is not found, and one a person sees is.
func TestExtractorsReadWhatPeopleSee(t *testing.T) {
	hidden := map[string]string{
		"opacity 0":         `<div style="opacity:0">Your verification code is 483920</div><p>Welcome aboard!</p>`,
		"visibility hidden": `<span style="visibility: hidden">Your verification code is 483920</span><p>Welcome aboard!</p>`,
		"hidden attribute":  `<p hidden>Your verification code is 483920</p><p>Welcome aboard!</p>`,
		"zero height":       `<div style="max-height:0;overflow:hidden">Your verification code is 483920</div><p>Welcome!</p>`,
	}
	for name, h := range hidden {
		if got, found := extract.BestOTP(extract.Message{HTML: h}); found {
			t.Errorf("%s: BestOTP(%q) = %+v, want none: read_email shows %q", name, h, got, message.HTMLToText(h))
		}
	}
	// x/net/html does not parse past 512 open elements; read_email still
	// shows the text, so the extractor must read it too.
	deep := strings.Repeat("<div>", 600) + "Your verification code is 483920" +
		`<p><a href="https://ex.test/verify?t=abc">Verify your email</a>`
	if got, found := extract.BestOTP(extract.Message{HTML: deep}); !found || got.Code != "483920" {
		t.Errorf("BestOTP(600 nested divs) = %+v, %v; want 483920 (read_email shows %q)", got, found, message.HTMLToText(deep))
	}
	if got := extract.HTMLToText(deep); got != message.HTMLToText(deep) {
		t.Errorf("extract.HTMLToText = %q, want read_email's %q", got, message.HTMLToText(deep))
	}
}
