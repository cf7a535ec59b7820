package config

import (
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/kelseyhightower/envconfig"
)

var (
	secretType = reflect.TypeFor[Secret]()
	levelType  = reflect.TypeFor[slog.Level]()
)

// decodeField parses raw into the field. Its error text is a VarError Reason.
// Secrets are kept as given; every other value is trimmed first.
func decodeField(fv reflect.Value, f reflect.StructField, raw string) error {
	if f.Type == secretType {
		fv.SetString(raw)
		return nil
	}
	s := strings.TrimSpace(raw)
	if d, ok := fv.Addr().Interface().(envconfig.Decoder); ok {
		return d.Decode(s)
	}
	if f.Type == levelType {
		l, err := parseLevel(s)
		fv.SetInt(int64(l))
		return err
	}
	switch f.Type.Kind() {
	case reflect.String:
		if hasControl(s) {
			return reasonError("must not contain control characters or line breaks")
		}
		fv.SetString(s)
	case reflect.Bool:
		b, err := parseBool(s)
		fv.SetBool(b)
		return err
	case reflect.Int:
		n, err := parseInt(s, f.Tag.Get("range"))
		fv.SetInt(int64(n))
		return err
	case reflect.Slice:
		fv.Set(reflect.ValueOf(splitList(s)))
	default:
		panic(fmt.Sprintf("config: field %s has unsupported type %s", f.Name, f.Type))
	}
	return nil
}

// parseBool accepts true/false, 1/0 and yes/no, in any case.
func parseBool(s string) (bool, error) {
	switch lower(s) {
	case "true", "1", "yes":
		return true, nil
	case "false", "0", "no":
		return false, nil
	}
	return false, reasonError("must be true or false")
}

// parseInt parses a whole number within the "min,max" bounds of bounds.
func parseInt(s, bounds string) (int, error) {
	loText, hiText, ok := strings.Cut(bounds, ",")
	if !ok {
		panic("config: an int field needs a range tag")
	}
	lo, _ := strconv.Atoi(loText)
	hi, _ := strconv.Atoi(hiText)
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, reasonError(fmt.Sprintf("must be a number from %d to %d", lo, hi))
	}
	return n, nil
}

// parseLevel accepts debug, info, warn (or warning) and error.
func parseLevel(s string) (slog.Level, error) {
	switch lower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return slog.LevelInfo, reasonError("must be one of debug, info, warn, error")
}

// splitList splits a comma list, trims the items and drops empty and
// repeated ones.
func splitList(s string) []string {
	items := []string{}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item != "" && !slices.Contains(items, item) {
			items = append(items, item)
		}
	}
	return items
}

func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func hasControl(s string) bool {
	return strings.ContainsFunc(s, unicode.IsControl)
}
