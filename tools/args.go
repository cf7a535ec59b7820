package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// bindArgs decodes a call's arguments into dst (a pointer to a struct with
// json tags). Unknown arguments and wrong types are INVALID_ARGUMENT errors
// that name the argument, so the model can correct its call.
func bindArgs(req mcp.CallToolRequest, dst any) *Error {
	b := []byte(req.Params.RawArguments)
	if len(bytes.TrimSpace(b)) == 0 {
		var err error
		if b, err = json.Marshal(req.Params.Arguments); err != nil {
			return invalidArg("arguments are not valid JSON")
		}
	}
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		b = []byte("{}")
	}
	if len(b) == 0 || b[0] != '{' {
		return invalidArg("arguments must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil && !errors.Is(err, io.EOF) {
		return decodeError(err)
	}
	return nil
}

func decodeError(err error) *Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return invalidArg("argument %q must be %s", te.Field, jsonKind(te.Type.Kind().String()))
	}
	var ae *argError
	if errors.As(err, &ae) {
		return invalidArg("%s", ae.msg)
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return invalidArg("unknown argument %s", name)
	}
	return invalidArg("arguments could not be decoded")
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

// argError is returned by custom argument types to produce a clear message.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

// UID is a message UID argument: a positive integer given as a JSON number or
// a numeric string (the seed accepted both).
type UID uint32

// UnmarshalJSON accepts 42, "42" and 42.0; anything else is an error.
func (u *UID) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if unq, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(unq)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(uint32(f)) || f < 1 {
		return &argError{fmt.Sprintf("uid must be a positive integer (got %s)", truncate(string(b), 40))}
	}
	*u = UID(f)
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
