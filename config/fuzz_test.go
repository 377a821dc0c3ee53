package config

import (
	"errors"
	"strings"
	"testing"
)

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
