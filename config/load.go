package config

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"
)

// DefaultEnvFile is the .env file read when LoadOptions.EnvFile is empty.
const DefaultEnvFile = ".env"

// LoadOptions says where Load reads variables from.
type LoadOptions struct {
	// EnvFile is the path of the .env file; "" means ./.env when present.
	EnvFile string
	// EnvFileExplicit is true when the user named the file (--env-file):
	// then a missing file is an error.
	EnvFileExplicit bool
	// Environ is the environment; nil means the real process environment.
	Environ map[string]string
}

// Load reads every variable from the environment and the .env file, applies
// defaults, resolves derived values and validates the result.
//
// A variable present in the environment wins over the .env file, even when it
// is empty; an empty value means "unset": the default applies. Load never
// changes the process environment.
//
// Every bad or missing variable is reported at once: the error is an
// errors.Join of *VarError, one per line, in the order of the Config fields;
// it matches ErrInvalid. A .env file that cannot be read or parsed gives an
// error that matches ErrEnvFile and ErrInvalid instead.
func Load(opts LoadOptions) (*Config, error) {
	env := opts.Environ
	if env == nil {
		env = osEnviron()
	}
	file, err := readEnvFile(opts.EnvFile, opts.EnvFileExplicit)
	if err != nil {
		return nil, err
	}
	ld := &loader{env: env, file: file, sources: map[string]Source{}, failed: map[string]bool{}}
	c := &Config{}
	ld.decodeAll(c)
	ld.resolve(c)
	ld.validate(c)
	ld.loadAccounts(c)
	ld.loadKeys(c)
	if err := ld.err(); err != nil {
		return nil, err
	}
	c.sources = ld.sources
	c.fileKeys = ld.unknownFileKeys(c.EmailAccounts)
	return c, nil
}

// readEnvFile reads the .env file into a map; a missing implicit file is none.
func readEnvFile(path string, explicit bool) (map[string]string, error) {
	if path == "" {
		path = DefaultEnvFile
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		return map[string]string{}, nil
	case err != nil:
		return nil, &envFileError{path: path, err: err}
	}
	m, err := parseEnvFile(data)
	if err != nil { // "line N: " and errSyntax, never the file's text
		return nil, &envFileError{path: path, err: err}
	}
	return m, nil
}

// osEnviron is the process environment as a map.
func osEnviron() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, ok := strings.Cut(kv, "=")
		if ok && k != "" {
			env[k] = v
		}
	}
	return env
}

// loader holds the state of one Load: inputs, sources and collected errors.
type loader struct {
	env, file map[string]string
	sources   map[string]Source
	errs      []*VarError
	failed    map[string]bool
	// prefix is a named account's variable prefix ("WORK_"), "" for the
	// default account: lookup and fail use varName.
	prefix string
}

// lookup returns a variable's raw value and source; "" when unset or empty.
// The environment hides the file even when its value is empty.
func (ld *loader) lookup(name string) (string, Source) {
	name = ld.varName(name)
	v, ok := ld.env[name]
	src := SourceEnv
	if !ok {
		v, ok = ld.file[name]
		src = SourceFile
	}
	if !ok || strings.TrimSpace(v) == "" {
		return "", SourceDefault
	}
	return v, src
}

// fail records a bad variable; value must be "" for secrets.
func (ld *loader) fail(name, value, reason string) {
	ld.failed[name] = true
	ld.errs = append(ld.errs, &VarError{Name: ld.varName(name), Value: safeValue(value), Reason: reason})
}

// isUserPass reports a "user:password" prefix (no blanks, no brackets).
func isUserPass(s string) bool {
	return strings.Contains(s, ":") && !strings.ContainsAny(s, " \t\r\n<>")
}

// safeValue is a value as an error may quote it: without the credentials of
// a URL or of user:password@host (a host written as a URL is an easy
// mistake), and without a URL's query and fragment, which may carry a
// token.
func safeValue(v string) string {
	rest, scheme := v, ""
	if i := strings.Index(v, "://"); i >= 0 {
		scheme, rest = v[:i+3], v[i+3:]
		if j := strings.IndexAny(rest, "?#"); j >= 0 {
			rest = rest[:j] + "?…"
		}
	}
	authority := rest
	if scheme != "" {
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			authority = rest[:j]
		}
	}
	if at := strings.LastIndexByte(authority, '@'); at >= 0 && (scheme != "" || isUserPass(authority[:at])) {
		rest = "***" + rest[at:]
	}
	return scheme + rest
}

// ok reports whether a variable has not failed yet.
func (ld *loader) ok(name string) bool { return !ld.failed[name] }

// userSet reports whether the user gave the variable a non-empty value.
func (ld *loader) userSet(name string) bool { return ld.sources[name].userSet() }

// decodeAll fills every tagged field from its variable or its default.
func (ld *loader) decodeAll(c *Config) {
	v := reflect.ValueOf(c).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		name := f.Tag.Get("envconfig")
		if name == "" {
			continue
		}
		raw, src := ld.lookup(name)
		if raw == "" {
			raw = f.Tag.Get("default")
		}
		ld.sources[name] = src
		if raw == "" {
			continue
		}
		if err := decodeField(v.FieldByIndex(f.Index), f, raw); err != nil {
			shown := raw
			if f.Type == secretType {
				shown = ""
			}
			ld.fail(name, shown, err.Error())
		}
	}
}

// err joins the collected errors in field order, or returns nil.
func (ld *loader) err() error {
	if len(ld.errs) == 0 {
		return nil
	}
	order := fieldOrder()
	slices.SortStableFunc(ld.errs, func(a, b *VarError) int {
		return cmp.Compare(order[a.Name], order[b.Name]) // a prefixed name sorts first
	})
	errs := make([]error, len(ld.errs))
	for i, e := range ld.errs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// unknownFileKeys lists names in the .env file that are no variable of ours.
func (ld *loader) unknownFileKeys(accounts []string) []string {
	order := fieldOrder()
	var unknown []string
	for k := range ld.file {
		if _, ok := order[k]; !ok && !accountKey(k, accounts) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	return unknown
}

// accountKey reports whether k is an account variable of a named account.
func accountKey(k string, accounts []string) bool {
	for _, a := range accounts {
		if rest, ok := strings.CutPrefix(k, prefix(a)); ok && AccountVariable(rest) {
			return true
		}
	}
	return false
}

// fieldOrder maps each variable name to its field index.
func fieldOrder() map[string]int {
	order := map[string]int{}
	for i, f := range reflect.VisibleFields(reflect.TypeFor[Config]()) {
		if name := f.Tag.Get("envconfig"); name != "" {
			order[name] = i
		}
	}
	return order
}

// Names lists every variable, in the order of the Config fields.
func Names() []string {
	order := fieldOrder()
	names := make([]string, 0, len(order))
	for name := range order {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(order[a], order[b]) })
	return names
}
