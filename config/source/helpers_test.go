package source

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/switchboard-mcp/switchboard/config"
)

// parseConfigs is p.Parse with the entries' configs.
func parseConfigs(p *Provider, loc Location, data []byte, env Env) ([]config.ServerConfig, []*config.Diagnostic, error) {
	entries, warnings, err := p.Parse(loc, data, env)
	if entries == nil {
		return nil, warnings, err
	}
	return Configs(entries), warnings, err
}

// Helpers shared by the tests of the foreign-format adapters (codex,
// opencode, zed, goose, continue).

// foreignIgnoreErr compares configs without their Err, checked as text.
var foreignIgnoreErr = cmpopts.IgnoreFields(config.ServerConfig{}, "Err")

// foreignSample parses a sample file from testdata with p.
func foreignSample(t *testing.T, p *Provider, file string, level config.Level) ([]config.ServerConfig, []*config.Diagnostic) {
	t.Helper()
	path := filepath.Join("testdata", file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	servers, warnings, err := parseConfigs(p, Location{Path: path, Level: level}, data, Env{})
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	return servers, warnings
}

// foreignSubstituted parses a sample file from testdata with p and
// substitutes, with vars as the environment, every server that has no
// error and is not disabled, as discovery does: the configs by name, and
// the substitution errors by name.
func foreignSubstituted(t *testing.T, p *Provider, file string, level config.Level, vars map[string]string) (map[string]config.ServerConfig, map[string]string) {
	t.Helper()
	path := filepath.Join("testdata", file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, _, err := p.Parse(Location{Path: path, Level: level}, data, adaptersEnv)
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	return substituteEntries(entries, vars)
}

// substituteEntries substitutes entries as discovery does (see
// foreignSubstituted).
func substituteEntries(entries []Entry, vars map[string]string) (map[string]config.ServerConfig, map[string]string) {
	out, errs := map[string]config.ServerConfig{}, map[string]string{}
	for _, en := range entries {
		if en.Config.Err == nil && !en.Config.Disabled {
			if err := en.Substitute(config.MapLookup(vars)); err != nil {
				errs[en.Config.Name] = err.Error()
			}
		}
		out[en.Config.Name] = en.Config
	}
	return out, errs
}

// foreignSource is the config.Source of a server of p in a testdata file.
func foreignSource(p *Provider, file string, level config.Level, line int) config.Source {
	return config.Source{Provider: p.Name, Path: filepath.Join("testdata", file), Level: level, Line: line}
}

// diagTexts renders diagnostics, nil for none.
func diagTexts(ds []*config.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Error())
	}
	return out
}

// serverErrs maps each server with an Err to its text.
func serverErrs(servers []config.ServerConfig) map[string]string {
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
	// want is compared ignoring config.Source and Err; nil means no servers.
	want []config.ServerConfig
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
			servers, warnings, err := parseConfigs(p, Location{Path: file, Level: config.LevelUser}, []byte(tt.in), Env{})
			if tt.fileErr != "" {
				var d *config.Diagnostic
				if !errors.As(err, &d) {
					t.Fatalf("err = %v (%T), want a *config.Diagnostic", err, err)
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
			ignore := cmpopts.IgnoreFields(config.ServerConfig{}, "Err", "Source")
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

// checkParse checks one fuzzed parse: no panic (the caller got here);
// every error and warning a *config.Diagnostic positioned in the file
// (line and column, within the file); every server's source complete; and
// the rules that follow (substitution, validation) do not panic either.
// Every fuzz target of the adapters uses it, so they all hold the same
// line.
func checkParse(t *testing.T, p *Provider, loc Location, data []byte, env Env) {
	t.Helper()
	servers, warnings, err := parseConfigs(p, loc, data, env)
	check := func(what string, err error) {
		t.Helper()
		var d *config.Diagnostic
		if !errors.As(err, &d) {
			t.Fatalf("%s %v is %T, want *config.Diagnostic", what, err, err)
		}
		if d.Line < 1 || d.Column < 1 || d.Path != loc.Path || d.Message == "" {
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
		if c.Source.Line < 1 || c.Source.Path != loc.Path || c.Source.Provider != p.Name || c.Source.Level != loc.Level {
			t.Errorf("server %q: bad source %+v", c.Name, c.Source)
		}
		if c.Err != nil {
			check("server "+c.Name, c.Err)
		}
	}
	// The rules that follow: each tool's substitution, positioned in the
	// file too, and validation.
	entries, _, _ := p.Parse(loc, data, env)
	for _, en := range entries {
		if en.Config.Err != nil {
			continue
		}
		if err := en.Substitute(env.Lookup); err != nil {
			check("substituting "+en.Config.Name, err)
			continue
		}
		_ = config.Validate(&en.Config)
	}
}

// fuzzForeign is checkParse of a project-level file.
func fuzzForeign(t *testing.T, p *Provider, path string, data []byte) {
	checkParse(t, p, Location{Path: path, Level: config.LevelProject}, data, Env{})
}
