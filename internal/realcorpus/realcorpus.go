// Package realcorpus reads the corpus of real mail templates of
// extract/testdata/real (see its README.md): the cases*.json files and
// the .eml files they name. It is for tests only: the extractor's
// figures (extract) and the waits' own decoding of the same mail (inbox).
package realcorpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Case is one message of the corpus.
type Case struct {
	File    string `json:"file"`
	Project string `json:"project"`
	Split   string `json:"split"`
	Source  struct {
		Repo    string `json:"repo"`
		Path    string `json:"path"`
		Commit  string `json:"commit"`
		Version string `json:"version"`
	} `json:"source"`
	Expect struct {
		Code *string `json:"code"`
		Raw  string  `json:"raw"`
		Link *string `json:"link"`
	} `json:"expect"`
	Note string `json:"note"`
	// Miss says why the extractor is known to miss this tune case.
	Miss string `json:"miss"`
}

// Load reads every cases*.json of dir. A file listed twice is an error.
func Load(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "cases*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("%s/cases*.json: %v, %d files", dir, err, len(files))
	}
	var cases []Case
	seen := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var batch []Case
		if err := json.Unmarshal(b, &batch); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, c := range batch {
			if seen[c.File] {
				return nil, fmt.Errorf("%s: %s listed twice", f, c.File)
			}
			seen[c.File] = true
		}
		cases = append(cases, batch...)
	}
	return cases, nil
}

// Code is the expected code, "" for none.
func (c Case) Code() string { return deref(c.Expect.Code) }

// Link is the expected link, "" for none.
func (c Case) Link() string { return deref(c.Expect.Link) }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
