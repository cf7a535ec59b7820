package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// goldenPath is the one source of the tool names: the tools package
// rewrites it from its registry with -update and fails when they differ.
const goldenPath = "tools/testdata/tools_list.golden.json"

// unfuzzed are the tools FuzzToolCall leaves to FuzzBindArgs (a wait lasts
// at least a second); every other tool must be in its fuzzTools.
var unfuzzed = []string{"wait_for_email", "wait_for_otp", "wait_for_link"}

// toolList is one place that writes the tool names out by hand: a file,
// how to read the names from it, and which of the golden's names it must
// list (nil: all of them).
type toolList struct {
	path  string
	names func([]byte) ([]string, error)
	want  func(golden []string) []string
}

var toolLists = []toolList{
	{path: "dist/mcpb/manifest.json", names: jsonToolNames},
	{path: "README.md", names: readmeToolNames},
	{path: "e2e/sdk.test.mjs", names: jsObjectKeys("REQUIRED")},
	{path: "e2e/sdk.test.mjs", names: jsObjectKeys("ARGS")},
	{path: "tools/fuzz_test.go", names: goStringSlice("fuzzTools"), want: func(g []string) []string {
		return slices.DeleteFunc(slices.Clone(g), func(n string) bool { return slices.Contains(unfuzzed, n) })
	}},
}

// TestToolListsMatchGolden: adding, renaming or removing a tool cannot
// leave one of the hand-written lists behind.
func TestToolListsMatchGolden(t *testing.T) {
	golden := goldenNames(t)
	if len(golden) == 0 {
		t.Fatalf("%s lists no tools", goldenPath)
	}
	for _, l := range toolLists {
		if err := l.check(readRepo(t, l.path), golden); err != nil {
			t.Error(err)
		}
	}
}

// TestToolListsReadGolden: the e2e tests that check the served tools take
// the names from the golden file, not from a count written in them.
func TestToolListsReadGolden(t *testing.T) {
	for _, p := range []string{"e2e/sdk.test.mjs", "e2e/mcpb.test.mjs", "scripts/e2e.sh"} {
		if !bytes.Contains(readRepo(t, p), []byte("tools_list.golden.json")) {
			t.Errorf("%s does not read %s", p, goldenPath)
		}
	}
}

// TestToolListsCatchADrift runs the check on mutated copies: a list that
// lacks a tool, and a golden with a new tool that no list has yet, must
// both fail, naming the tool.
func TestToolListsCatchADrift(t *testing.T) {
	golden := goldenNames(t)
	for _, l := range toolLists {
		raw := readRepo(t, l.path)
		dropped := dropLines(raw, "get_latest")
		if bytes.Equal(dropped, raw) {
			t.Fatalf("%s: no line names get_latest to drop", l.path)
		}
		var d *drift
		if err := l.check(dropped, golden); !errors.As(err, &d) || !slices.Contains(d.missing, "get_latest") {
			t.Errorf("%s without get_latest: check = %v, want get_latest missing", l.path, err)
		}
		if err := l.check(raw, append(slices.Clone(golden), "new_tool")); !errors.As(err, &d) || !slices.Equal(d.missing, []string{"new_tool"}) {
			t.Errorf("%s with new_tool in the golden: check = %v, want new_tool missing", l.path, err)
		}
	}
}

// check compares the names in raw with those the golden asks for: none
// missing, none extra, none twice.
func (l toolList) check(raw []byte, golden []string) error {
	got, err := l.names(raw)
	if err != nil {
		return fmt.Errorf("%s: %v", l.path, err)
	}
	want := golden
	if l.want != nil {
		want = l.want(golden)
	}
	var missing, extra, twice []string
	for _, n := range want {
		if !slices.Contains(got, n) {
			missing = append(missing, n)
		}
	}
	seen := map[string]bool{}
	for _, n := range got {
		if !slices.Contains(want, n) {
			extra = append(extra, n)
		}
		if seen[n] {
			twice = append(twice, n)
		}
		seen[n] = true
	}
	if missing == nil && extra == nil && twice == nil {
		return nil
	}
	return &drift{l.path, missing, extra, twice}
}

// drift is a list whose names differ from the golden's.
type drift struct {
	path                  string
	missing, extra, twice []string
}

func (d *drift) Error() string {
	return fmt.Sprintf("%s: tools differ from %s: missing %q, extra %q, twice %q", d.path, goldenPath, d.missing, d.extra, d.twice)
}

// repoRoot is the module root, two folders up from this package.
const repoRoot = "../.."

func readRepo(t *testing.T, rel string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func goldenNames(t *testing.T) []string {
	t.Helper()
	names, err := jsonToolNames(readRepo(t, goldenPath))
	if err != nil {
		t.Fatalf("%s: %v", goldenPath, err)
	}
	return names
}

// jsonToolNames reads {"tools":[{"name":…},…]}: tools/list and the MCPB
// manifest.
func jsonToolNames(raw []byte) ([]string, error) {
	var doc struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	names := make([]string, len(doc.Tools))
	for i, tl := range doc.Tools {
		names[i] = tl.Name
	}
	return names, nil
}

// readmeToolNames reads the first column of every table whose header is
// "| tool | what |"; a cell may name several tools ("a, b").
func readmeToolNames(raw []byte) ([]string, error) {
	var names []string
	in := false
	for line := range strings.Lines(string(raw)) {
		line = strings.TrimSpace(line)
		switch {
		case line == "| tool | what |":
			in = true
		case !strings.HasPrefix(line, "|"):
			in = false
		case in && !strings.HasPrefix(line, "|---"):
			cell, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
			for n := range strings.SplitSeq(cell, ",") {
				names = append(names, strings.Trim(strings.TrimSpace(n), "`"))
			}
		}
	}
	if names == nil {
		return nil, fmt.Errorf(`no "| tool | what |" table`)
	}
	return names, nil
}

// jsObjectKeys reads the keys of "const NAME = {" … "};", one per line.
func jsObjectKeys(name string) func([]byte) ([]string, error) {
	key := regexp.MustCompile(`^\s+([a-z_]+):`)
	return func(raw []byte) ([]string, error) {
		body, err := jsConstBody(raw, name)
		if err != nil {
			return nil, err
		}
		var names []string
		for line := range strings.Lines(body) {
			if m := key.FindStringSubmatch(line); m != nil {
				names = append(names, m[1])
			}
		}
		return names, nil
	}
}

// jsConstBody is the text between "const NAME = {" and "};".
func jsConstBody(raw []byte, name string) (string, error) {
	_, body, ok := strings.Cut(string(raw), "\nconst "+name+" = {\n")
	if !ok {
		return "", fmt.Errorf("no const %s = {", name)
	}
	body, _, ok = strings.Cut(body, "\n};")
	if !ok {
		return "", fmt.Errorf("const %s is not closed by };", name)
	}
	return body, nil
}

// goStringSlice reads the string literals of "var NAME = []string{…}" in
// a Go file.
func goStringSlice(name string) func([]byte) ([]string, error) {
	return func(raw []byte) ([]string, error) {
		f, err := parser.ParseFile(token.NewFileSet(), "", raw, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		var names []string
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Names) != 1 || vs.Names[0].Name != name || len(vs.Values) != 1 {
				return true
			}
			lit, ok := vs.Values[0].(*ast.CompositeLit)
			if !ok {
				return true
			}
			found = true
			for _, e := range lit.Elts {
				if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
					s, _ := strconv.Unquote(b.Value)
					names = append(names, s)
				}
			}
			return false
		})
		if !found {
			return nil, fmt.Errorf("no var %s = []string{…}", name)
		}
		return names, nil
	}
}

// dropLines removes every line that contains word.
func dropLines(raw []byte, word string) []byte {
	var out []byte
	for line := range bytes.Lines(raw) {
		if !bytes.Contains(line, []byte(word)) {
			out = append(out, line...)
		}
	}
	return out
}
