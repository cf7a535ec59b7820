package mcpkit_test

import (
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/mcpkit"
)

// TestLimit: an absent limit is the default, one from 1 to max is taken,
// and any other is INVALID_ARGUMENT naming the range.
func TestLimit(t *testing.T) {
	n := func(v int) *int { return &v }
	cases := []struct {
		arg  *int
		want int
		ok   bool
	}{{nil, 20, true}, {n(1), 1, true}, {n(100), 100, true}, {n(0), 0, false}, {n(101), 0, false}, {n(-5), 0, false}}
	for _, tc := range cases {
		got, err := mcpkit.Limit(tc.arg, 20, 100)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("Limit(%v, 20, 100) = %d, %v; want %d ok=%v", tc.arg, got, err, tc.want, tc.ok)
		}
		if te, isTool := err.(*mcpkit.Error); err != nil && (!isTool || te.Code != mcpkit.CodeInvalidArgument || te.Message != "limit must be from 1 to 100") {
			t.Errorf("Limit(%v) error = %v, want INVALID_ARGUMENT %q", tc.arg, err, "limit must be from 1 to 100")
		}
	}
}

// TestCheckFilters: plain text up to MaxFilterLen bytes passes; a control
// character or one byte more is refused, naming the filter.
func TestCheckFilters(t *testing.T) {
	ok := []mcpkit.Filter{{Name: "from", Value: ""}, {Name: "from", Value: "Grüße, a@b.c"}, {Name: "to", Value: strings.Repeat("y", mcpkit.MaxFilterLen)}}
	if err := mcpkit.CheckFilters(ok...); err != nil {
		t.Errorf("CheckFilters(%v) = %v, want nil", ok, err)
	}
	for _, v := range []string{"a\x00b", "tab\there", "del\x7f", strings.Repeat("y", mcpkit.MaxFilterLen+1)} {
		err := mcpkit.CheckFilters(mcpkit.Filter{Name: "from", Value: "ok"}, mcpkit.Filter{Name: "sender", Value: v})
		te, isTool := err.(*mcpkit.Error)
		if !isTool || te.Code != mcpkit.CodeInvalidArgument || te.Message != "sender must be plain text (no control characters) of at most 1000 bytes" {
			t.Errorf("CheckFilters(sender %.20q) = %v, want INVALID_ARGUMENT naming sender", v, err)
		}
	}
}
