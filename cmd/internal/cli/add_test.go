package cli

import (
	"testing"

	"github.com/spf13/pflag"
)

// TestDashedLine: the line add's mistake message offers is the one given,
// with -- put before the server's command, whatever flags (and their
// values) come before it.
func TestDashedLine(t *testing.T) {
	fs := pflag.NewFlagSet("add", pflag.ContinueOnError)
	var s []string
	fs.StringP("config", "c", "", "")
	fs.BoolP("verbose", "v", false, "")
	fs.String("scope", "user", "")
	addListFlag(fs, &s, "env", "")
	for _, tc := range []struct {
		argv, pos []string
		want      string
	}{
		{[]string{"add", "foo", "npx", "-y", "bar"}, []string{"foo", "npx"}, "switchboard add foo -- npx -y bar"},
		{[]string{"-c", "add", "add", "foo", "npx"}, []string{"foo", "npx"}, "switchboard -c add add foo -- npx"},
		{[]string{"--config=x", "add", "-v", "foo", "--scope", "npx", "npx", "-y"}, []string{"foo", "npx"},
			"switchboard --config=x add -v foo --scope npx -- npx -y"},
		{[]string{"add", "foo", "--env", "A=it's", "run", "x y"}, []string{"foo", "run"},
			`switchboard add foo --env 'A=it'\''s' -- run 'x y'`},
		// Not read the same way: the positional words alone.
		{[]string{"ad", "foo", "npx"}, []string{"foo", "npx"}, "switchboard add foo -- npx"},
	} {
		if got := dashedLine(tc.argv, fs, tc.pos); got != tc.want {
			t.Errorf("dashedLine(%q) = %q, want %q", tc.argv, got, tc.want)
		}
	}
}
