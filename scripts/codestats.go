//go:build ignore

// Codestats prints, for each package of the module under a root folder,
// its non-test Go files, their lines, and the median, p90 and longest of
// its functions' lengths in lines (declaration to closing brace, methods
// included, function literals counted with the function around them). It
// is a measure for reviews, not a test: nothing fails on its numbers.
//
//	go run scripts/codestats.go [ROOT]        # ROOT: default "."
//	git worktree add /tmp/main main && go run scripts/codestats.go /tmp/main
package main

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

// pkgStats is what codestats counts for one folder.
type pkgStats struct {
	files, lines int
	funcs        []int // lengths in lines
}

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	stats, err := collect(root)
	if err != nil {
		log.Fatal(err)
	}
	report(stats)
}

// collect walks root and measures every non-test .go file, skipping
// testdata, node_modules and hidden folders.
func collect(root string) (map[string]*pkgStats, error) {
	stats := map[string]*pkgStats{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		s := stats[rel]
		if s == nil {
			s = &pkgStats{}
		}
		if err := measure(fset, path, s); err != nil {
			return err
		}
		if s.files > 0 {
			stats[rel] = s
		}
		return nil
	})
	return stats, err
}

// measure adds one file's lines and function lengths to s; a file
// built only on request (//go:build ignore, like this one) is no package's.
func measure(fset *token.FileSet, path string, s *pkgStats) error {
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return err
	}
	if len(f.Comments) > 0 && f.Comments[0].Pos() < f.Package && f.Comments[0].List[0].Text == "//go:build ignore" {
		return nil
	}
	s.files++
	s.lines += fset.File(f.Pos()).LineCount()
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
			s.funcs = append(s.funcs, fset.Position(fn.End()).Line-fset.Position(fn.Pos()).Line+1)
		}
	}
	return nil
}

// report writes one row per package, sorted by name.
func report(stats map[string]*pkgStats) {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "package\tfiles\tlines\tfuncs\tmedian\tp90\tmax\t")
	for _, name := range slices.Sorted(maps.Keys(stats)) {
		s := stats[name]
		slices.Sort(s.funcs)
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, s.files, s.lines, len(s.funcs),
			rank(s.funcs, 50), rank(s.funcs, 90), rank(s.funcs, 100))
	}
	w.Flush()
}

// rank is the nearest-rank p-th percentile of sorted (0 when empty).
func rank(sorted []int, p int) int {
	if len(sorted) == 0 {
		return 0
	}
	i := cmp.Or((p*len(sorted)+99)/100, 1)
	return sorted[i-1]
}
