package config

import (
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kelseyhightower/envconfig"
)

// entry is one variable as printed: secrets are already redacted.
type entry struct {
	name   string
	value  string
	source Source
}

// entries lists every variable with its printable value, in field order.
func (c *Config) entries() []entry {
	v := reflect.ValueOf(c).Elem()
	var list []entry
	for _, f := range reflect.VisibleFields(v.Type()) {
		name := f.Tag.Get("envconfig")
		if name == "" {
			continue
		}
		list = append(list, entry{name, printable(v.FieldByIndex(f.Index)), c.Source(name)})
	}
	return list
}

// printable formats a field's value; a Secret prints as Redacted.
func printable(fv reflect.Value) string {
	switch x := fv.Interface().(type) {
	case Secret:
		return x.String()
	case slog.Level:
		return strings.ToLower(x.String())
	case []string:
		return strings.Join(x, ",")
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	}
	return fv.String()
}

// Fprint writes a NAME=value table of every variable, with where each value
// came from, for `email-mcp config` and debugging. Secrets print as
// [Redacted]. Values with spaces or special characters are quoted.
func (c *Config) Fprint(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range c.entries() {
		fmt.Fprintf(tw, "%s=%s\t# %s\n", e.name, quoteValue(e.value), e.source)
	}
	_ = tw.Flush()
}

// quoteValue quotes a value that a .env reader would not take verbatim.
func quoteValue(s string) string {
	if s == "" || !strings.ContainsFunc(s, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"'#$\`, r)
	}) {
		return s
	}
	return strconv.Quote(s)
}

// LogValue implements slog.LogValuer: every variable by name, secrets
// redacted.
func (c *Config) LogValue() slog.Value {
	list := c.entries()
	attrs := make([]slog.Attr, len(list))
	for i, e := range list {
		attrs[i] = slog.String(e.name, e.value)
	}
	return slog.GroupValue(attrs...)
}

// usageFormat is envconfig's usage template without the "required" column:
// which variables are required depends on IMAP_HOST (see the package doc).
const usageFormat = `VARIABLE	TYPE	DEFAULT	DESCRIPTION
{{range .}}{{usage_key .}}	{{usage_type .}}	{{usage_default .}}	{{usage_description .}}
{{end}}`

// Usage writes a table of every variable with its type, default and
// description, made by envconfig from the Config struct tags.
func Usage(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if err := envconfig.Usagef("", &Config{}, tw, usageFormat); err != nil {
		return fmt.Errorf("usage: %w", err)
	}
	return tw.Flush()
}
