package archtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The e2e tables REQUIRED and ARGS (e2e/sdk.test.mjs) write DESIGN.md's
// arguments of every tool by hand, and the e2e run compares them with the
// served schemas. These tests compare them with the golden's schemas at
// go test time, so a schema change rewritten with -update names the e2e
// row to change at once, without Node or a running server.

const e2eTables = "e2e/sdk.test.mjs"

// schemaArgs are each golden tool's required arguments and all of its
// argument names.
type schemaArgs struct {
	required, properties []string
}

func goldenArgs(raw []byte) (map[string]schemaArgs, error) {
	var doc struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Required   []string                   `json:"required"`
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	out := map[string]schemaArgs{}
	for _, tl := range doc.Tools {
		var props []string
		for p := range tl.InputSchema.Properties {
			props = append(props, p)
		}
		out[tl.Name] = schemaArgs{required: tl.InputSchema.Required, properties: props}
	}
	return out, nil
}

// jsStringArrays reads "const NAME = {" … "};" whose lines are
// "  tool: ['a', 'b'],".
func jsStringArrays(raw []byte, name string) (map[string][]string, error) {
	body, err := jsConstBody(raw, name)
	if err != nil {
		return nil, err
	}
	row := regexp.MustCompile(`^\s+([a-z_]+): \[(.*)\],?$`)
	item := regexp.MustCompile(`'([a-z_]+)'`)
	out := map[string][]string{}
	for line := range strings.Lines(body) {
		m := row.FindStringSubmatch(strings.TrimRight(line, "\n"))
		if m == nil {
			continue
		}
		args := []string{}
		for _, a := range item.FindAllStringSubmatch(m[2], -1) {
			args = append(args, a[1])
		}
		out[m[1]] = args
	}
	return out, nil
}

// checkE2EArgs lists every row of REQUIRED that is not its tool's
// required arguments, and every name of ARGS its tool's schema lacks.
func checkE2EArgs(golden map[string]schemaArgs, required, args map[string][]string) []string {
	var bad []string
	for tool, s := range golden {
		want := slices.Sorted(slices.Values(s.required))
		got := slices.Sorted(slices.Values(required[tool]))
		if !slices.Equal(want, got) {
			bad = append(bad, fmt.Sprintf("REQUIRED.%s is %q, the schema requires %q", tool, got, want))
		}
		for _, a := range args[tool] {
			if !slices.Contains(s.properties, a) {
				bad = append(bad, fmt.Sprintf("ARGS.%s names %q, which the schema does not take", tool, a))
			}
		}
	}
	slices.Sort(bad)
	return bad
}

func readE2EArgs(t *testing.T) (golden map[string]schemaArgs, required, args map[string][]string) {
	t.Helper()
	golden, err := goldenArgs(readRepo(t, goldenPath))
	if err != nil {
		t.Fatalf("%s: %v", goldenPath, err)
	}
	raw := readRepo(t, e2eTables)
	if required, err = jsStringArrays(raw, "REQUIRED"); err != nil {
		t.Fatalf("%s: %v", e2eTables, err)
	}
	if args, err = jsStringArrays(raw, "ARGS"); err != nil {
		t.Fatalf("%s: %v", e2eTables, err)
	}
	if len(required) != len(golden) || len(args) != len(golden) {
		t.Fatalf("%s: REQUIRED has %d rows and ARGS %d, the golden %d tools", e2eTables, len(required), len(args), len(golden))
	}
	return golden, required, args
}

// TestE2EArgsMatchGolden: REQUIRED and ARGS say what the schemas say.
func TestE2EArgsMatchGolden(t *testing.T) {
	golden, required, args := readE2EArgs(t)
	for _, b := range checkE2EArgs(golden, required, args) {
		t.Errorf("%s: %s (%s)", e2eTables, b, goldenPath)
	}
}

// TestE2EArgsCatchADrift: a schema that gains a required argument, and
// an ARGS row naming an argument no schema has, are both named.
func TestE2EArgsCatchADrift(t *testing.T) {
	golden, required, args := readE2EArgs(t)
	s := golden["read_email"]
	s.required = append(slices.Clone(s.required), "format")
	golden["read_email"] = s
	args["get_latest"] = append(slices.Clone(args["get_latest"]), "no_such_arg")
	got := checkE2EArgs(golden, required, args)
	want := []string{
		`ARGS.get_latest names "no_such_arg", which the schema does not take`,
		`REQUIRED.read_email is ["uid"], the schema requires ["format" "uid"]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("checkE2EArgs(drifted) = %q, want %q", got, want)
	}
}
