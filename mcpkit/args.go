package mcpkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/email-mcp/email-mcp/message"
)

// BindArgs decodes a call's arguments into dst (a pointer to a struct with
// json tags). Unknown arguments and wrong types are INVALID_ARGUMENT errors
// that name the argument, so the model can correct its call.
func BindArgs(req mcp.CallToolRequest, dst any) *Error {
	b := []byte(req.Params.RawArguments)
	if len(bytes.TrimSpace(b)) == 0 {
		var err error
		if b, err = json.Marshal(req.Params.Arguments); err != nil {
			return InvalidArg("arguments are not valid JSON")
		}
	}
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		b = []byte("{}")
	}
	if len(b) == 0 || b[0] != '{' {
		return InvalidArg("arguments must be a JSON object")
	}
	err := decodeArgs(integralNumbers(b), dst)
	// A string where a number goes: read numeric strings as numbers and
	// decode again. Only then, so that well-typed calls pay nothing.
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Value == "string" {
		fixed, bad := numericStrings(b, dst)
		if bad != nil {
			return bad
		}
		if v := reflect.ValueOf(dst); v.Kind() == reflect.Pointer && !v.IsNil() {
			v.Elem().SetZero() // the first decode filled some fields
		}
		err = decodeArgs(integralNumbers(fixed), dst)
	}
	if err != nil {
		return decodeError(err)
	}
	return CheckLengths(dst)
}

// decodeArgs decodes an arguments object into dst, refusing unknown names.
func decodeArgs(b []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// integralNumbers rewrites the top-level numbers of an arguments object
// (and those of its arrays) that are whole but written with a fraction or
// an exponent (5.0, 1e1) as integers: JSON Schema counts them as integers,
// Python's json writes floats so, and encoding/json refuses them for an int
// field. Anything it cannot read is returned as it was (decoding reports it).
func integralNumbers(b []byte) []byte {
	if !bytes.ContainsAny(b, ".eE") {
		return b
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(b, &args) != nil {
		return b
	}
	changed := false
	fix := func(raw json.RawMessage) json.RawMessage {
		if n, ok := wholeNumber(raw); ok {
			changed = true
			return n
		}
		return raw
	}
	for k, raw := range args {
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
			var items []json.RawMessage
			if json.Unmarshal(t, &items) == nil {
				for i := range items {
					items[i] = fix(items[i])
				}
				if out, err := json.Marshal(items); err == nil {
					args[k] = out
				}
			}
			continue
		}
		args[k] = fix(raw)
	}
	if !changed {
		return b
	}
	out, err := json.Marshal(args)
	if err != nil {
		return b
	}
	return out
}

// numericStrings rewrites the top-level string values of an arguments
// object whose destination field in dst is a number ("30" for timeout, "10"
// for limit, "0.9" for min_confidence) as JSON numbers, by the field's
// kind: models and form-filling clients write numbers as strings. A string
// that is not a JSON number for such a field is INVALID_ARGUMENT naming it.
// Fields of other kinds (UID takes strings itself) are left alone, and so
// is anything that does not parse (decoding reports it).
func numericStrings(b []byte, dst any) ([]byte, *Error) {
	fields := numericFields(reflect.TypeOf(dst))
	if len(fields) == 0 || !bytes.Contains(b, []byte(`"`)) {
		return b, nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(b, &args) != nil {
		return b, nil
	}
	changed := false
	for name, raw := range args {
		kind, ok := fields[name]
		var str string
		if !ok || json.Unmarshal(raw, &str) != nil {
			continue
		}
		t := strings.TrimSpace(str)
		if !jsonNumber.MatchString(t) {
			return nil, InvalidArg("argument %q must be %s (got %q)", name, jsonKind(kind.String()), message.Truncate(str, 40))
		}
		args[name], changed = json.RawMessage(t), true
	}
	if !changed {
		return b, nil
	}
	out, err := json.Marshal(args)
	if err != nil {
		return b, nil
	}
	return out, nil
}

// jsonNumber is the grammar of a JSON number.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// numericByType caches numericFields.
var numericByType sync.Map // reflect.Type → map[string]reflect.Kind

// numericFields maps the json names of the number fields (int, uint and
// float kinds, or pointers to them) of the struct *t to their kind.
func numericFields(t reflect.Type) map[string]reflect.Kind {
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	t = t.Elem()
	if m, ok := numericByType.Load(t); ok {
		return m.(map[string]reflect.Kind)
	}
	m := map[string]reflect.Kind{}
	for _, f := range reflect.VisibleFields(t) {
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		switch ft.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
			m[name] = ft.Kind()
		}
	}
	numericByType.Store(t, m)
	return m
}

// wholeNumber returns raw as an integer literal when it is a JSON number
// with a fraction or exponent and a whole value of at most 2^53.
func wholeNumber(raw json.RawMessage) (json.RawMessage, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || !(t[0] == '-' || t[0] >= '0' && t[0] <= '9') || !bytes.ContainsAny(t, ".eE") {
		return raw, false
	}
	f, err := strconv.ParseFloat(string(t), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return raw, false
	}
	return json.RawMessage(strconv.FormatInt(int64(f), 10)), true
}

// defaultMaxArg bounds every string argument (folder names, search terms,
// ids, addresses, paths) unless its field says otherwise with a tag
// `max:"N"` (bytes) or `max:"-"` (bodies: bounded by the request size). A
// huge argument is refused here rather than sent on as an IMAP literal.
const defaultMaxArg = 1024

// CheckLengths applies defaultMaxArg and the max tags to the string, *string,
// []string and StringList fields of the struct dst points to.
func CheckLengths(dst any) *Error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	for _, f := range lengthLimits(v.Type()) {
		for _, s := range stringsOf(v.FieldByIndex(f.index)) {
			if len(s) > f.limit {
				return InvalidArg("argument %q is too long (%d bytes; at most %d)", f.name, len(s), f.limit)
			}
		}
	}
	return nil
}

// fieldLimit is the length limit of one argument field.
type fieldLimit struct {
	index []int
	name  string
	limit int
}

// limitsByType caches lengthLimits: the tags of an argument struct do not
// change, and every tool call checks them.
var limitsByType sync.Map // reflect.Type → []fieldLimit

// lengthLimits lists the limited fields of struct type t (max:"-" ones are
// left out).
func lengthLimits(t reflect.Type) []fieldLimit {
	if l, ok := limitsByType.Load(t); ok {
		return l.([]fieldLimit)
	}
	var limits []fieldLimit
	for _, f := range reflect.VisibleFields(t) {
		limit, name := defaultMaxArg, strings.Split(f.Tag.Get("json"), ",")[0]
		switch tag := f.Tag.Get("max"); tag {
		case "-":
			continue
		case "":
		default:
			limit, _ = strconv.Atoi(tag)
		}
		limits = append(limits, fieldLimit{index: f.Index, name: name, limit: limit})
	}
	limitsByType.Store(t, limits)
	return limits
}

// stringsOf returns the strings a field holds.
func stringsOf(v reflect.Value) []string {
	switch {
	case v.Kind() == reflect.String:
		return []string{v.String()}
	case v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.String:
		return []string{v.Elem().String()}
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		out := make([]string, v.Len())
		for i := range out {
			out[i] = v.Index(i).String()
		}
		return out
	}
	return nil
}

func decodeError(err error) *Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return InvalidArg("argument %q must be %s", message.Truncate(te.Field, 80), jsonKind(te.Type.Kind().String()))
	}
	var ae *ArgError
	if errors.As(err, &ae) {
		return InvalidArg("%s", ae.Msg)
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return InvalidArg("unknown argument %s", message.Truncate(name, 80))
	}
	return InvalidArg("arguments could not be decoded")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "bool":
		return "a boolean"
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "int", "int64", "uint32", "uint64", "int32", "uint":
		return "an integer"
	case "float64", "float32":
		return "a number"
	}
	return "of another type"
}

// ArgError is returned by custom argument types (UnmarshalJSON) to produce
// a clear message: BindArgs answers INVALID_ARGUMENT with Msg.
type ArgError struct{ Msg string }

func (e *ArgError) Error() string { return e.Msg }

// StringList is an argument that takes a JSON array of strings or, as the
// seed's examples do for one recipient, a single string ("a@x.com"; commas
// or semicolons separate several, outside quotes, angle brackets and
// comments: "\"Doe, John\" <j@x>" is one address; message.SplitAddressList).
type StringList []string

// UnmarshalJSON accepts ["a","b"], "a" and "a, b". A value of another type
// is a *json.UnmarshalTypeError, which the decoder completes with the
// argument's name.
func (l *StringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = nil
		for _, s := range message.SplitAddressList(one) {
			if s = strings.TrimSpace(s); s != "" {
				*l = append(*l, s)
			}
		}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return &json.UnmarshalTypeError{Value: "a " + jsonValueKind(b), Type: reflect.TypeFor[[]string]()}
	}
	*l = many
	return nil
}

// jsonValueKind names the kind of a JSON value for an error.
func jsonValueKind(b []byte) string {
	t := bytes.TrimSpace(b)
	switch {
	case len(t) == 0:
		return "nothing"
	case t[0] == '{':
		return "object"
	case t[0] == '[':
		return "array of other values"
	case t[0] == 't' || t[0] == 'f':
		return "boolean"
	case t[0] == 'n':
		return "null"
	}
	return "number"
}

// Bound is a handler that binds the call's arguments into an A (BindArgs)
// and runs f with them: what nearly every tool's handler does first.
func Bound[A any](f func(ctx context.Context, args A) (any, error)) func(context.Context, mcp.CallToolRequest) (any, error) {
	return func(ctx context.Context, req mcp.CallToolRequest) (any, error) {
		var args A
		if err := BindArgs(req, &args); err != nil {
			return nil, err
		}
		return f(ctx, args)
	}
}

// MaxFilterLen bounds a text filter argument (a search term, below the
// length every string argument has).
const MaxFilterLen = 1000

// Filter is a text filter argument: its name and value.
type Filter struct{ Name, Value string }

// CheckFilters is the one validation of every text filter of every tool,
// in the order given: search_emails' from, to, subject, body and text,
// list_messages' and wait_for_email's subject_contains and sender. A filter
// is plain text of at most MaxFilterLen bytes: a control character (a NUL)
// reached IMAP SEARCH, whose refusal came back as INTERNAL, retryable, from
// list_messages, and made a wait wait for nothing.
func CheckFilters(filters ...Filter) error {
	for _, f := range filters {
		if len(f.Value) > MaxFilterLen || strings.ContainsFunc(f.Value, isControl) {
			return InvalidArg("%s must be plain text (no control characters) of at most %d bytes", f.Name, MaxFilterLen)
		}
	}
	return nil
}

// isControl reports an ASCII control character (C0 or DEL).
func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// Limit is a page size argument: def when it is absent, else from 1 to
// max (an INVALID_ARGUMENT that says so otherwise).
func Limit(arg *int, def, max int) (int, error) {
	n := def
	if arg != nil {
		n = *arg
	}
	if n < 1 || n > max {
		return 0, InvalidArg("limit must be from 1 to %d", max)
	}
	return n, nil
}

// Types declares the JSON types an argument takes, for an argument of more
// than one (a uid given as a number or a string).
func Types(types ...string) mcp.PropertyOption {
	return func(m map[string]any) { m["type"] = types }
}
