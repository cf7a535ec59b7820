package transport

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"

	"github.com/email-mcp/email-mcp/mcpkit"
)

// GET /docs is the OpenAPI document read by a person: one server-side
// rendered page, with no script and nothing loaded from elsewhere (its CSP
// says so), so that it works offline and cannot be made to run anything.

//go:embed docs.html
var docsHTML string

//go:embed docs.css
var docsCSS string

var docsPage = template.Must(template.New("docs").Parse(docsHTML))

// docsCSP allows the page's own stylesheet (by its hash) and nothing else:
// no script, no image, no frame, no form, no base.
var docsCSP = func() string {
	sum := sha256.Sum256([]byte(docsCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}()

// docsView is what docs.html renders.
type docsView struct {
	Name, Version, Base string
	ToolsCurl           string // GET /mcp/tools
	ReadOnly            bool
	CSS                 template.CSS
	Tools               []toolView
	Codes               []codeView
}

type toolView struct {
	Name, Title, Description string
	Annotations              []string
	Args                     []argView
	Results                  []resultView
	Curl                     string
}

type argView struct {
	Name, Type, Default, Bounds, Description string
	Required                                 bool
}

type resultView struct{ Key, Type, Description string }

type codeView struct {
	Code, Message string
	Retryable     bool
}

// renderDocs is the /docs page for the server at base.
func (s *endpoints) renderDocs(ctx context.Context, base string) ([]byte, error) {
	list, err := s.listedTools(ctx)
	if err != nil {
		return nil, err
	}
	info := s.ts.Info()
	v := docsView{Name: info.Name, Version: info.Version, Base: base,
		ReadOnly: info.ReadOnly, CSS: template.CSS(docsCSS)}
	v.ToolsCurl = "curl -sS -H \"X-API-Key: $MCP_API_KEY\" " + shellQuote(v.Base+"/mcp/tools")
	for _, t := range list {
		v.Tools = append(v.Tools, toolViewOf(t, v.Base))
	}
	for _, c := range mcpkit.Codes() {
		v.Codes = append(v.Codes, codeView{string(c.Code), c.Message, c.Retryable})
	}
	var buf bytes.Buffer
	if err := docsPage.Execute(&buf, v); err != nil {
		s.log.Error("docs page", "err", err)
		return nil, err
	}
	return buf.Bytes(), nil
}

// docsHeader are the headers of /docs besides nosniff and no-store.
var docsHeader = map[string]string{
	"Content-Type":            "text/html; charset=utf-8",
	"Content-Security-Policy": docsCSP,
	"Referrer-Policy":         "no-referrer",
}

// schemaNode is the part of a JSON Schema the page shows.
type schemaNode struct {
	Type        any                    `json:"type"`
	Description string                 `json:"description"`
	Default     any                    `json:"default"`
	Enum        []any                  `json:"enum"`
	Properties  map[string]*schemaNode `json:"properties"`
	Required    []string               `json:"required"`
	Items       *schemaNode            `json:"items"`
	AnyOf       []*schemaNode          `json:"anyOf"`
	Bounds      map[string]any         `json:"-"`
}

func (n *schemaNode) UnmarshalJSON(b []byte) error {
	type plain schemaNode
	if err := json.Unmarshal(b, (*plain)(n)); err != nil {
		return err
	}
	var all map[string]any
	_ = json.Unmarshal(b, &all)
	for _, k := range []string{"minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"} {
		if v, ok := all[k]; ok {
			if n.Bounds == nil {
				n.Bounds = map[string]any{}
			}
			n.Bounds[k] = v
		}
	}
	return nil
}

// typeName is "string", "integer | string", "array of string", …
func (n *schemaNode) typeName() string {
	if n == nil {
		return ""
	}
	var t string
	switch v := n.Type.(type) {
	case string:
		t = v
	case []any:
		parts := make([]string, 0, len(v))
		for _, p := range v {
			parts = append(parts, fmt.Sprint(p))
		}
		t = strings.Join(parts, " | ")
	}
	if n.Items != nil {
		t += " of " + n.Items.typeName()
		if keys := slices.Sorted(maps.Keys(n.Items.Properties)); len(keys) > 0 {
			t += " {" + strings.Join(keys, ", ") + "}"
		}
	} else if keys := slices.Sorted(maps.Keys(n.Properties)); len(keys) > 0 && t == "object" {
		t += " {" + strings.Join(keys, ", ") + "}"
	}
	return t
}

// bounds is "1 ≤ n ≤ 100", "≤ 64 chars", "one of: text, html, both", …
func (n *schemaNode) bounds() string {
	var parts []string
	b := n.Bounds
	pair := func(lo, hi, unit string) {
		l, okl := b[lo]
		h, okh := b[hi]
		switch {
		case okl && okh:
			parts = append(parts, fmt.Sprintf("%v–%v%s", l, h, unit))
		case okl:
			parts = append(parts, fmt.Sprintf("≥ %v%s", l, unit))
		case okh:
			parts = append(parts, fmt.Sprintf("≤ %v%s", h, unit))
		}
	}
	pair("minimum", "maximum", "")
	pair("minLength", "maxLength", " chars")
	pair("minItems", "maxItems", " items")
	if len(n.Enum) > 0 {
		vals := make([]string, len(n.Enum))
		for i, e := range n.Enum {
			vals[i] = fmt.Sprint(e)
		}
		parts = append(parts, "one of: "+strings.Join(vals, ", "))
	}
	return strings.Join(parts, "; ")
}

// toolViewOf shapes one tool for the page.
func toolViewOf(t toolDoc, base string) toolView {
	v := toolView{Name: t.Name, Title: t.Annotations.Title, Description: t.Description, Curl: curlExample(t, base)}
	a := t.Annotations
	for _, h := range []struct {
		name string
		val  *bool
	}{{"readOnly", a.ReadOnlyHint}, {"destructive", a.DestructiveHint}, {"idempotent", a.IdempotentHint}, {"openWorld", a.OpenWorldHint}} {
		if h.val != nil {
			v.Annotations = append(v.Annotations, fmt.Sprintf("%s: %t", h.name, *h.val))
		}
	}
	var in schemaNode
	_ = json.Unmarshal(t.InputSchema, &in)
	for _, name := range slices.Sorted(maps.Keys(in.Properties)) {
		p := in.Properties[name]
		def := ""
		if p.Default != nil {
			b, _ := json.Marshal(p.Default)
			def = string(b)
		}
		v.Args = append(v.Args, argView{Name: name, Type: p.typeName(), Default: def, Bounds: p.bounds(),
			Description: p.Description, Required: slices.Contains(in.Required, name)})
	}
	slices.SortStableFunc(v.Args, func(x, y argView) int { // required first
		switch {
		case x.Required == y.Required:
			return 0
		case x.Required:
			return -1
		}
		return 1
	})
	var out schemaNode
	_ = json.Unmarshal(t.OutputSchema, &out)
	result := &out
	if len(out.AnyOf) > 0 { // {"anyOf":[result, error]}
		result = out.AnyOf[0]
	}
	for _, key := range slices.Sorted(maps.Keys(result.Properties)) {
		p := result.Properties[key]
		v.Results = append(v.Results, resultView{Key: key, Type: p.typeName(), Description: p.Description})
	}
	return v
}

// curlExample is a command that calls t on the server at base, verbatim in
// a POSIX shell where MCP_API_KEY holds the key.
func curlExample(t toolDoc, base string) string {
	body, _ := json.Marshal(exampleCall(t))
	return "curl -sS -H \"X-API-Key: $MCP_API_KEY\" -H 'Content-Type: application/json' \\\n" +
		"  -d " + shellQuote(string(body)) + " \\\n  " + shellQuote(base+"/mcp/call")
}

// shellQuote puts s in single quotes for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
