package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Helpers shared by the tests of the foreign-format adapters (codex,
// opencode, zed, goose, continue).

// foreignIgnoreErr compares configs without their Err, checked as text.
var foreignIgnoreErr = cmpopts.IgnoreFields(ServerConfig{}, "Err")

// foreignSample parses a sample file from testdata with p.
func foreignSample(t *testing.T, p *Provider, file string, level Level) ([]ServerConfig, []*Diagnostic) {
	t.Helper()
	path := filepath.Join("testdata", file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	servers, warnings, err := p.Parse(Location{Path: path, Level: level}, data, Env{})
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	return servers, warnings
}

// foreignSource is the Source of a server of p in a testdata file.
func foreignSource(p *Provider, file string, level Level, line int) Source {
	return Source{Provider: p.Name, Path: filepath.Join("testdata", file), Level: level, Line: line}
}

// diagTexts renders diagnostics, nil for none.
func diagTexts(ds []*Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Error())
	}
	return out
}

// serverErrs maps each server with an Err to its text.
func serverErrs(servers []ServerConfig) map[string]string {
	out := map[string]string{}
	for _, c := range servers {
		if c.Err != nil {
			out[c.Name] = c.Err.Error()
		}
	}
	return out
}

// foreignCase is one small file for an adapter and what it should give.
type foreignCase struct {
	name string
	in   string
	// want is compared ignoring Source and Err; nil means no servers.
	want []ServerConfig
	// errs are the servers' Err texts by name; warnings the warnings'.
	errs     map[string]string
	warnings []string
	// fileErr is the whole-file error, when there is one.
	fileErr string
}

// runForeignCases parses each case as file (a name with the right
// extension) and checks the outcome.
func runForeignCases(t *testing.T, p *Provider, file string, cases []foreignCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			servers, warnings, err := p.Parse(Location{Path: file, Level: LevelUser}, []byte(tt.in), Env{})
			if tt.fileErr != "" {
				var d *Diagnostic
				if !errors.As(err, &d) {
					t.Fatalf("err = %v (%T), want a *Diagnostic", err, err)
				}
				if err.Error() != tt.fileErr {
					t.Errorf("err = %s\nwant  %s", err, tt.fileErr)
				}
				if servers != nil {
					t.Errorf("servers %v with a file error", servers)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			ignore := cmpopts.IgnoreFields(ServerConfig{}, "Err", "Source")
			if diff := cmp.Diff(tt.want, servers, ignore, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.errs, serverErrs(servers), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("server errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, diagTexts(warnings), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// fuzzForeign checks one fuzzed parse: no panic (the caller got here), and
// every error and warning a *Diagnostic positioned in the file.
func fuzzForeign(t *testing.T, p *Provider, path string, data []byte) {
	servers, warnings, err := p.Parse(Location{Path: path, Level: LevelProject}, data, Env{})
	check := func(what string, err error) {
		t.Helper()
		var d *Diagnostic
		if !errors.As(err, &d) {
			t.Fatalf("%s %v is %T, want *Diagnostic", what, err, err)
		}
		if d.Line < 1 || d.Column < 1 || d.Path != path || d.Message == "" {
			t.Errorf("%s: badly positioned diagnostic %+v", what, d)
		}
		if lines := strings.Count(string(data), "\n") + 1; d.Line > lines {
			t.Errorf("%s: line %d is past the end of the file (%d lines)", what, d.Line, lines)
		}
	}
	if err != nil {
		check("error", err)
		if servers != nil || warnings != nil {
			t.Errorf("servers %v and warnings %v with a file error", servers, warnings)
		}
		return
	}
	for _, w := range warnings {
		check("warning", w)
	}
	for _, c := range servers {
		if c.Source.Line < 1 || c.Source.Path != path || c.Source.Provider != p.Name || c.Source.Level != LevelProject {
			t.Errorf("server %q: bad source %+v", c.Name, c.Source)
		}
		if c.Err != nil {
			check("server error", c.Err)
		}
	}
}

func TestReadJSONCTree(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"comment and trailing comma keep positions", "{\n  // a comment\n  \"a\": [1, 2,],\n  /* block\n */ \"b\": tru\n}", "f.json:5:13: invalid character '\\n' in literal true (expecting 'e')"},
		{"truncated", "{\n  \"a\": {\n", "f.json:2:9: unexpected end of input (is the file truncated?)"},
		{"BOM does not shift columns", "\xef\xbb\xbf{x}", "f.json:1:2: invalid character 'x' looking for beginning of object key string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readJSONCTree("f.json", []byte(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v\nwant  %s", err, tt.want)
			}
		})
	}
	for _, blank := range []string{"", " \n", "// only a comment\n", "\xef\xbb\xbf"} {
		if root, _, err := readJSONCTree("f.json", []byte(blank)); root != nil || err != nil {
			t.Errorf("readJSONCTree(%q) = %v, %v; want nothing", blank, root, err)
		}
	}
}
