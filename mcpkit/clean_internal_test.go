package mcpkit

import (
	"encoding/json"
	"testing"

	"github.com/email-mcp/email-mcp/message"
)

func TestCleanJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
		removed        bool
	}{
		{"clean JSON untouched", `{"a":"x <y@z> & é","n":[1,true,null],"o":{"b":"c"}}`, `{"a":"x <y@z> & é","n":[1,true,null],"o":{"b":"c"}}`, false},
		{"one-line value", `{"subject":"a\nb\u001bc\u202ed"}`, `{"subject":"a bcd"}`, true},
		{"tab made a space, not removed", `{"subject":"a\tb"}`, `{"subject":"a b"}`, false},
		{"bodies keep lines", `{"body_text":"a\n\tb\u200b","body_html":"\u003cp\u003ex\r\n"}`, `{"body_text":"a\n\tb","body_html":"\u003cp\u003ex\n"}`, true},
		{"links encoded", `{"link":"https://a.example/x\u200by z","links":["https://a.example/\u202e"]}`,
			`{"link":"https://a.example/x%E2%80%8By%20z","links":["https://a.example/%E2%80%AE"]}`, true},
		{"arrays of objects take their own keys", `{"links":[{"filename":"a\u202e","body_text":"x\ny"}]}`, `{"links":[{"filename":"a","body_text":"x\ny"}]}`, true},
		{"keys are cleaned", `{"a\u202eb":1}`, `{"ab":1}`, true},
		{"key after a nested value", `{"o":{"body_text":"x"},"subject":"a\nb"}`, `{"o":{"body_text":"x"},"subject":"a b"}`, true},
		{"escaped quote and backslash", `{"s":"\"\\\u202e"}`, `{"s":"\"\\"}`, true},
		{"emoji presentation kept", `{"subject":"ok ✔️"}`, `{"subject":"ok ✔️"}`, false},
	}
	for _, tt := range tests {
		got, changed, removed := cleanJSON([]byte(tt.in))
		if string(got) != tt.want || removed != tt.removed || changed != (tt.in != tt.want) {
			t.Errorf("%s: cleanJSON(%s) = %s, changed %v, removed %v; want %s, removed %v", tt.name, tt.in, got, changed, removed, tt.want, tt.removed)
		}
		if !json.Valid(got) {
			t.Errorf("%s: cleanJSON(%s) = %s: not JSON", tt.name, tt.in, got)
		}
	}
}

// FuzzCleanJSON: whatever the strings of a result, the cleaned JSON is
// valid, each string is what its key's cleaner makes of it, and cleaning
// again changes nothing.
func FuzzCleanJSON(f *testing.F) {
	for _, s := range []string{"a\u202eb", "x\r\ny\"\\", "<a href=x>&amp;</a>\u2028", "https://a.example/\u200b b", "\x00\x1b\u0085\U000E0041\ufe0f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, _ := json.Marshal(s) // invalid UTF-8 becomes U+FFFD byte by byte, as in a result
		_ = json.Unmarshal(b, &s)
		in, _ := json.Marshal(map[string]any{"subject": s, "body_text": s, "links": []string{s}, s: []any{1, map[string]string{"link": s}}})
		out, _, _ := cleanJSON(in)
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("cleanJSON(%s) = %s: %v", in, out, err)
		}
		line, _ := message.CleanLine(s)
		text, _ := message.CleanText(s)
		link, _ := message.CleanURL(s)
		if got["subject"] != line || got["body_text"] != text || got["links"].([]any)[0] != link {
			t.Fatalf("cleanJSON(%s) = %s: want subject %q, body_text %q, link %q", in, out, line, text, link)
		}
		if inner, ok := got[line].([]any); !ok || inner[1].(map[string]any)["link"] != link {
			t.Fatalf("cleanJSON(%s) = %s: want key %q holding link %q", in, out, line, link)
		}
		if again, changed, _ := cleanJSON(out); changed || string(again) != string(out) {
			t.Fatalf("cleanJSON(%s) = %s, again %s", in, out, again)
		}
	})
}
