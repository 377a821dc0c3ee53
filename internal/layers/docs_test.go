package layers

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDesignCitations: every section and feature of docs/DESIGN.md that a
// comment cites exists there, so a citation never points at nothing.
func TestDesignCitations(t *testing.T) {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := strings.TrimSpace(string(root))
	design, err := os.ReadFile(filepath.Join(dir, "docs", "DESIGN.md"))
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+?)(?: \(F[0-9F–-]+\))?$`).FindAllStringSubmatch(string(design), -1) {
		headings[m[1]] = true
	}
	features := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^- (F\d+) `).FindAllStringSubmatch(string(design), -1) {
		features[m[1]] = true
	}
	// A citation may run over a comment's line break: lines are joined.
	joined := regexp.MustCompile(`\n\s*//\s*`)
	section := regexp.MustCompile(`DESIGN\.md,? "([^"\n]+)"`)
	feature := regexp.MustCompile(`DESIGN\.md,? (F\d+)`)
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || d.Name() == "docs_test.go" {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		data := joined.ReplaceAll(raw, []byte(" "))
		rel, _ := filepath.Rel(dir, path)
		for _, m := range section.FindAllStringSubmatch(string(data), -1) {
			if !headings[m[1]] {
				t.Errorf("%s cites DESIGN.md %q, which has no such section", rel, m[1])
			}
		}
		for _, m := range feature.FindAllStringSubmatch(string(data), -1) {
			if !features[m[1]] {
				t.Errorf("%s cites DESIGN.md %s, which lists no such feature", rel, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// maxFileLines is how long a non-test Go file may grow before it is split
// by concept (STYLE.md: "Keep files under ~600 lines").
const maxFileLines = 600

// TestFileSizes: no non-test Go file is longer than maxFileLines.
func TestFileSizes(t *testing.T) {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := strings.TrimSpace(string(root))
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := strings.Count(string(data), "\n"); n > maxFileLines {
			rel, _ := filepath.Rel(dir, path)
			t.Errorf("%s has %d lines, over %d: split it by concept", rel, n, maxFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
