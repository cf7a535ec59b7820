package archtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is our import path prefix.
const module = "github.com/email-mcp/email-mcp/"

// everything is the allowed list of a package that may import any of ours.
const everything = "*"

// allowed mirrors docs/ARCHITECTURE.md, "Arrows today (enforced)": which of
// our packages each package's non-test code may import.
var allowed = map[string][]string{
	"cmd/email-mcp":       {everything},
	"cmd/email-mcp-bench": {"internal/netaddr"},
	"scripts/scale":       nil,
	"tools":               {"mcpkit", "inboxtools", "imap", "smtp", "attachments", "message", "inbox", "outbox", "internal/hourly"},
	"inboxtools":          {"mcpkit", "imap", "inbox", "message", "extract"},
	"mcpkit":              {"message"},
	"inbox":               {"imap", "message", "extract", "internal/hourly"},
	"outbox":              {"imap", "smtp", "attachments", "message"},
	"imap":                {"message", "internal/clampconn", "internal/redact", "internal/saslbearer"},
	"smtp":                {"internal/clampconn", "internal/redact", "internal/netaddr", "internal/saslbearer"},
	"attachments":         nil,
	"devmail":             nil,
	"config":              {"internal/netaddr"},
	"auth":                nil,
	"message":             nil,
	"extract":             {"message"},
	"internal/clampconn":  nil,
	"internal/redact":     nil,
	"internal/netaddr":    nil,
	"internal/saslbearer": nil,
	"internal/hourly":     nil,
	"oauth":               nil,
	"internal/mailtest":   {"devmail"},
	"internal/faultproxy": nil,
	"internal/realcorpus": nil,
	"internal/archtest":   nil,
	"web":                 nil,
	"transport":           {"mcpkit", "auth"},
}

// upstream mirrors the doc's second table: the only packages that may
// import each of these modules (or a package below it).
var upstream = map[string][]string{
	"github.com/emersion/go-imap/v2":       {"imap", "devmail", "internal/mailtest", "cmd/email-mcp-bench"},
	"github.com/emersion/go-smtp":          {"smtp", "devmail", "cmd/email-mcp-bench", "scripts/scale"},
	"github.com/mark3labs/mcp-go":          {"mcpkit", "tools", "inboxtools", "cmd/email-mcp", "transport"},
	"github.com/kelseyhightower/envconfig": {"config"},
	"golang.org/x/oauth2":                  {"oauth"},
}

const archDoc = "docs/ARCHITECTURE.md"

// TestImportArrows: no package's non-test code imports what the table
// forbids, and every package is in the table.
func TestImportArrows(t *testing.T) {
	for _, v := range violations(importGraph(t)) {
		t.Error(v)
	}
}

// TestArchitectureDocMatches: the tables of docs/ARCHITECTURE.md and the
// ones above say the same, so the page cannot drift from the check.
func TestArchitectureDocMatches(t *testing.T) {
	doc := readRepo(t, archDoc)
	for _, tc := range []struct {
		heading string
		want    map[string][]string
	}{
		{"## Arrows today (enforced)", allowed},
		{"Upstream types stay in their adapter", upstream},
	} {
		got, err := docTable(doc, tc.heading)
		if err != nil {
			t.Fatalf("%s: %v", archDoc, err)
		}
		if err := sameTable(got, tc.want); err != nil {
			t.Errorf("%s, the table after %q: %v", archDoc, tc.heading, err)
		}
	}
}

// TestArchChecksCatchADrift runs both checks on mutated inputs: an import
// the table forbids, a package nobody placed, upstream types leaving their
// adapter, and a doc table that lost an arrow.
func TestArchChecksCatchADrift(t *testing.T) {
	graph := importGraph(t)
	for _, tc := range []struct {
		name, pkg, imp, want string
	}{
		{"adapter imports adapter", "imap", module + "smtp", "imap imports smtp"},
		{"leaf imports config", "message", module + "config", "message imports config"},
		{"unplaced package", "unplaced", module + "extract", "unplaced is not in"},
		{"a room's sub-package takes its row", "devmail/internal/store", module + "tools", "devmail/internal/store imports tools"},
		{"upstream type leaves its adapter", "tools", "github.com/emersion/go-imap/v2/imapclient", "tools imports github.com/emersion/go-imap/v2/imapclient"},
	} {
		g := maps.Clone(graph)
		g[tc.pkg] = append(slices.Clone(g[tc.pkg]), tc.imp)
		vs := violations(g)
		if !slices.ContainsFunc(vs, func(v string) bool { return strings.Contains(v, tc.want) }) {
			t.Errorf("%s: violations = %q, want one containing %q", tc.name, vs, tc.want)
		}
	}
	doc := readRepo(t, archDoc)
	mutated := bytes.Replace(doc, []byte("| `config` | `internal/netaddr` |"), []byte("| `config` | — |"), 1)
	if bytes.Equal(mutated, doc) {
		t.Fatalf("%s has no row for config to mutate", archDoc)
	}
	got, err := docTable(mutated, "## Arrows today (enforced)")
	if err != nil {
		t.Fatal(err)
	}
	if err := sameTable(got, allowed); err == nil || !strings.Contains(err.Error(), "config") {
		t.Errorf("doc without config's arrow: sameTable = %v, want an error naming config", err)
	}
}

// importGraph is `go list`'s non-test imports of every package of the
// module, keyed by the path below the module.
func importGraph(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = repoRoot
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	graph := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 {
			graph[strings.TrimPrefix(f[0], module)] = f[1:]
		}
	}
	if len(graph) == 0 {
		t.Fatal("go list found no packages")
	}
	return graph
}

// violations lists every import the tables forbid, one sentence each.
func violations(graph map[string][]string) []string {
	var out []string
	for _, pkg := range slices.Sorted(maps.Keys(graph)) {
		r, placed := room(pkg)
		if !placed {
			out = append(out, fmt.Sprintf("%s is not in the table of %s: place it there and in allowed", pkg, archDoc))
			continue
		}
		for _, imp := range graph[pkg] {
			if ours, isOurs := strings.CutPrefix(imp, module); isOurs {
				if !mayImport(r, ours) {
					out = append(out, fmt.Sprintf("%s imports %s, which %s does not allow", pkg, ours, archDoc))
				}
				continue
			}
			for mod, only := range upstream {
				if (imp == mod || strings.HasPrefix(imp, mod+"/")) && !slices.Contains(only, r) {
					out = append(out, fmt.Sprintf("%s imports %s: only %s may (%s)", pkg, imp, strings.Join(only, ", "), archDoc))
				}
			}
		}
	}
	return out
}

// room is the row of the table pkg belongs to: its own, or that of the
// nearest folder above it (devmail/internal/memstore is in devmail's).
func room(pkg string) (string, bool) {
	for p := pkg; ; {
		if _, ok := allowed[p]; ok {
			return p, true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return "", false
		}
		p = p[:i]
	}
}

// mayImport reports whether code of room r may import our package imp:
// one inside r itself, or in a room r's row lists.
func mayImport(r, imp string) bool {
	ir, _ := room(imp)
	ok := allowed[r]
	return ir == r || slices.Contains(ok, everything) || slices.Contains(ok, imp) || slices.Contains(ok, ir)
}

// docTable reads the first Markdown table after the line that starts with
// heading: the first column's `name`, the second's `a`, `b` list ("—":
// none; "everything": *).
func docTable(doc []byte, heading string) (map[string][]string, error) {
	_, rest, ok := strings.Cut(string(doc), "\n"+heading)
	if !ok {
		return nil, fmt.Errorf("no %q", heading)
	}
	table := map[string][]string{}
	started := false
	for line := range strings.Lines(rest) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if started {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if !started || strings.HasPrefix(line, "|---") {
			started = true // the header row and the rule
			continue
		}
		if len(cells) != 2 {
			return nil, fmt.Errorf("row %q: want two cells", line)
		}
		table[strings.Trim(strings.TrimSpace(cells[0]), "`")] = docList(cells[1])
	}
	if len(table) == 0 {
		return nil, errors.New("no table after " + heading)
	}
	return table, nil
}

func docList(cell string) []string {
	switch cell = strings.TrimSpace(cell); cell {
	case "—":
		return nil
	case "everything":
		return []string{everything}
	}
	var list []string
	for item := range strings.SplitSeq(cell, ",") {
		list = append(list, strings.Trim(strings.TrimSpace(item), "`"))
	}
	return list
}

// sameTable reports the first difference between two tables, order aside.
func sameTable(got, want map[string][]string) error {
	for _, k := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[k]
		if !ok {
			return fmt.Errorf("no row for %s", k)
		}
		if a, b := slices.Sorted(slices.Values(g)), slices.Sorted(slices.Values(want[k])); !slices.Equal(a, b) {
			return fmt.Errorf("%s: the doc says %q, the test %q", k, a, b)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			return fmt.Errorf("a row for %s that the test lacks", k)
		}
	}
	return nil
}

// TestSubPackagesJoinTheirRoom: a room imports its own sub-packages freely,
// and they are held to the room's row.
func TestSubPackagesJoinTheirRoom(t *testing.T) {
	graph := map[string][]string{
		"devmail":                {module + "devmail/internal/store"},
		"devmail/internal/store": {"github.com/emersion/go-imap/v2"},
		"cmd/email-mcp-bench":    {module + "internal/netaddr"},
	}
	if vs := violations(graph); vs != nil {
		t.Errorf("violations(%v) = %q, want none", graph, vs)
	}
	graph["smtp/internal/x"] = []string{"github.com/mark3labs/mcp-go/mcp"}
	if vs := violations(graph); len(vs) != 1 || !strings.Contains(vs[0], "smtp/internal/x imports github.com/mark3labs/mcp-go/mcp") {
		t.Errorf("violations with smtp/internal/x importing mcp-go = %q, want that one", vs)
	}
}
