package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	env := MapLookup(map[string]string{
		"A":      "alpha",
		"B_2":    "beta",
		"EMPTY":  "",
		"DOLLAR": "${A}", // values are not expanded again
	})
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "", want: ""},
		{in: "plain", want: "plain"},
		{in: "${A}", want: "alpha"},
		{in: "x-${A}-${B_2}-y", want: "x-alpha-beta-y"},
		{in: "${env:A}", want: "alpha"},
		{in: "${EMPTY}", want: ""},
		{in: "${EMPTY:-dflt}", want: "dflt"},
		{in: "${UNSET:-dflt}", want: "dflt"},
		{in: "${UNSET:-}", want: ""},
		{in: "${A:-dflt}", want: "alpha"},
		{in: "${env:UNSET:-d}", want: "d"},
		{in: "${UNSET:-a b:c}", want: "a b:c"},
		{in: "${UNSET:-${A}}", want: "alpha"},
		{in: "${UNSET:-${UNSET2:-deep}}", want: "deep"},
		{in: "${A:-${UNSET}}", want: "alpha"}, // an unused default is not expanded
		{in: "${DOLLAR}", want: "${A}"},
		{in: "$A", want: "$A"},
		{in: "$", want: "$"},
		{in: "a$", want: "a$"},
		{in: "price $5", want: "price $5"},
		{in: "$$", want: "$$"},
		{in: "echo $$ ${A}", want: "echo $$ alpha"},
		{in: "$${A}", want: "$${A}"},
		{in: "$$$${A}", want: "$$$${A}"},
		{in: "$$${A}", want: "$$alpha"},
		{in: "{A}", want: "{A}"},
		{in: "{env:A}", want: "alpha"},
		{in: "x{env:A}y{env:B_2}", want: "xalphaybeta"},
		{in: "{{env:A}}", want: "{alpha}"},
		{in: "{env:}", want: "{env:}"},
		{in: "{env:A B}", want: "{env:A B}"},
		{in: "{env:A", want: "{env:A"},
		{in: "${UNSET:-{env:A}}", want: "alpha"},
		{in: "{env:UNSET}", wantErr: "variable UNSET is not set (use ${UNSET:-default} to give a default)"},
		{in: "}", want: "}"},
		{in: "${UNSET}", wantErr: "variable UNSET is not set (use ${UNSET:-default} to give a default)"},
		{in: "${env:UNSET}", wantErr: "variable UNSET is not set (use ${UNSET:-default} to give a default)"},
		{in: "${UNSET:-${UNSET2}}", wantErr: "variable UNSET2 is not set (use ${UNSET2:-default} to give a default)"},
		{in: "${A", wantErr: `unterminated "${A" (missing "}")`},
		{in: "ok ${", wantErr: `unterminated "${" (missing "}")`},
		{in: "${A:-${B}", wantErr: `unterminated "${A:-${B}" (missing "}")`},
		{in: "${}", wantErr: `invalid variable reference "${}"`},
		{in: "${1X}", wantErr: `invalid variable reference "${1X}"`},
		{in: "${A B}", wantErr: `invalid variable reference "${A B}"`},
		{in: "${A-x}", wantErr: `invalid variable reference "${A-x}"`},
		{in: strings.Repeat("${U:-", 9) + "x" + strings.Repeat("}", 9), want: "x"},
		{in: strings.Repeat("${U:-", 10) + "x" + strings.Repeat("}", 10), wantErr: "defaults nested more than 8 deep"},
		{in: strings.Repeat("${A:-", 10) + "x" + strings.Repeat("}", 10), want: "alpha"}, // unused defaults are not looked at
		{in: "${input:token}", wantErr: `unsupported variable "${input:token}" (only ${VAR}, ${VAR:-default} and ${env:VAR} are supported)`},
		{in: "${workspaceFolder:x}", wantErr: `unsupported variable "${workspaceFolder:x}" (only ${VAR}, ${VAR:-default} and ${env:VAR} are supported)`},
	}
	for _, tt := range tests {
		got, err := Expand(tt.in, env)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tt.want || gotErr != tt.wantErr {
			t.Errorf("Expand(%q) = %q, %q; want %q, %q", tt.in, got, gotErr, tt.want, tt.wantErr)
		}
	}
}

func TestExpandUnsetIsTyped(t *testing.T) {
	_, err := Expand("a ${TOKEN} b", MapLookup(nil))
	var unset *UnsetVariableError
	if !errors.As(err, &unset) || unset.Name != "TOKEN" {
		t.Errorf("err = %v; want *UnsetVariableError{TOKEN}", err)
	}
}

func TestSubstitute(t *testing.T) {
	env := map[string]string{"T": "tok", "HOME": "/home/ada"}
	in := ServerConfig{
		Name:    "s",
		Command: "~/bin/${T}",
		Args:    []string{"${T}", "~/not-expanded"},
		Env:     map[string]string{"K": "${T}", "~": "~"},
		Cwd:     "~",
		URL:     "https://h/${T}",
		Headers: map[string]string{"Authorization": "Bearer ${T}"},
	}
	orig := in
	origEnv := map[string]string{"K": "${T}", "~": "~"}
	c := in
	if err := Substitute(&c, MapLookup(env)); err != nil {
		t.Fatal(err)
	}
	want := ServerConfig{
		Name:    "s",
		Command: "/home/ada/bin/tok",
		Args:    []string{"tok", "~/not-expanded"},
		Env:     map[string]string{"K": "tok", "~": "~"},
		Cwd:     "/home/ada",
		URL:     "https://h/tok",
		Headers: map[string]string{"Authorization": "Bearer tok"},
		// HOME went only into command and cwd.
		Substituted: map[string]string{"T": "tok"},
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("Substitute (-want +got):\n%s", diff)
	}
	// The caller's slices and maps are not touched.
	if diff := cmp.Diff(origEnv, orig.Env); diff != "" || orig.Args[0] != "${T}" {
		t.Errorf("Substitute changed the input: %s %v", diff, orig.Args)
	}
}

func TestSubstituteErrors(t *testing.T) {
	tests := []struct {
		c    ServerConfig
		want string
	}{
		{ServerConfig{Name: "s", Command: "~/x"}, `m.json:9: server "s": field "command": cannot expand "~": HOME is not set`},
		{ServerConfig{Name: "s", Command: "x", Env: map[string]string{"B": "${NO_B}", "A": "${NO_A}"}}, `m.json:9: server "s": field "env.A": variable NO_A is not set (use ${NO_A:-default} to give a default)`},
		{ServerConfig{Name: "s", URL: "https://${NO}"}, `m.json:9: server "s": field "url": variable NO is not set (use ${NO:-default} to give a default)`},
	}
	for _, tt := range tests {
		c := tt.c
		c.Source = Source{Path: "m.json", Line: 9}
		before := c
		err := Substitute(&c, MapLookup(nil))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Substitute(%+v) = %v\nwant %s", tt.c, err, tt.want)
		}
		if diff := cmp.Diff(before, c); diff != "" {
			t.Errorf("a failed Substitute changed the config:\n%s", diff)
		}
	}
}

// TestExpandHostileInput guards against quadratic time on input a hostile
// project file could hold: if it comes back, this test hangs.
func TestExpandHostileInput(t *testing.T) {
	const n = 200_000
	for _, s := range []string{
		strings.Repeat("${U:-", n) + strings.Repeat("}", n),
		strings.Repeat("${", n),
		strings.Repeat("${A:-x}", n),
		strings.Repeat("$", n) + "{",
	} {
		Expand(s, MapLookup(map[string]string{"A": "a"}))
	}
}
