package config

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func FuzzParseNative(f *testing.F) {
	sample, err := os.ReadFile("testdata/sample.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add(sample[:len(sample)/2])
	for _, s := range []string{
		"", "{}", "[]", "null", "\xef\xbb\xbf{}", `{"mcpServers": 3}`, `{"mcpServers": {"a": []}}`,
		`{"mcpServers": {"a": {"command": "x", "args": ["${HOME}", 1], "env": {"A": "${NOPE:-d}"}}}}`,
		`{"mcpServers": {"a": {"url": "https://h/${env:GITHUB_TOKEN}", "headers": {"A": "${"}, "timeout": 5}}}`,
		`{"mcpServers": {"a": {"type": "sse", "tools": {"allow": ["[", 2]}, "enabled": "x"}, "a": {}}}`,
		"{\n\"mcpServers\": {\n\"a\": {\"command\": \"x\",}\n}\n}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := ParseNative("f.json", data, LevelUser, testEnv)
		if err != nil {
			checkDiagnostic(t, err)
			if servers != nil {
				t.Errorf("servers %v with a file error", servers)
			}
			return
		}
		for _, c := range servers {
			if c.Source.Line < 1 || c.Source.Path != "f.json" || c.Source.Provider != ProviderNative {
				t.Errorf("server %q: bad source %+v", c.Name, c.Source)
			}
			if c.Err != nil {
				checkDiagnostic(t, c.Err)
				continue
			}
			// A usable server is valid and fully substituted.
			if err := Validate(&c); err != nil {
				t.Errorf("server %q has no Err but Validate says %v", c.Name, err)
			}
		}
	})
}

func checkDiagnostic(t *testing.T, err error) {
	t.Helper()
	d, ok := err.(*Diagnostic)
	if !ok {
		t.Fatalf("error %v is %T, want *Diagnostic", err, err)
	}
	if d.Line < 1 || d.Column < 1 || d.Path != "f.json" || d.Message == "" {
		t.Errorf("badly positioned diagnostic %+v", d)
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{
		"", "plain", "${A}", "${env:A}", "${A:-d}", "${NOPE:-${A}}", "${A:-${NOPE}}", "$$", "$${A}",
		"$", "price $5", "${", "${A", "${}", "${1}", "${input:x}", "${A:-${B", "}}${A}}", "~/x/${A}",
		"{env:A}", "{env:}", "{env:1}", "{env:A", "${X:-{env:A}}", "{{env:A}}",
	} {
		f.Add(s)
	}
	all := func(string) (string, bool) { return "v", true }
	none := func(string) (string, bool) { return "", false }
	f.Fuzz(func(t *testing.T, s string) {
		got, errAll := Expand(s, all)
		_, errNone := Expand(s, none)
		if !strings.Contains(s, "${") && !strings.Contains(s, "{env:") {
			if errAll != nil || got != s {
				t.Errorf("Expand(%q) = %q, %v; want it unchanged", s, got, errAll)
			}
		}
		// With every variable set, no reference is left unset; a syntax
		// error seen then is also seen when nothing is set, since that
		// expands a superset (every default).
		var unset *UnsetVariableError
		if errors.As(errAll, &unset) {
			t.Errorf("Expand(%q) with everything set: %v", s, errAll)
		}
		if errAll != nil && errNone == nil {
			t.Errorf("Expand(%q): error %v with everything set but none with nothing set", s, errAll)
		}
		if errAll == nil && !strings.Contains(s, "$$") && strings.Count(got, "$") > strings.Count(s, "$") {
			t.Errorf("Expand(%q) = %q added dollars", s, got)
		}
		if !strings.HasPrefix(s, "~") {
			if p, err := expandPath(s, all); p != got || (err == nil) != (errAll == nil) {
				t.Errorf("expandPath(%q) = %q, %v; Expand gave %q, %v", s, p, err, got, errAll)
			}
		}
	})
}
