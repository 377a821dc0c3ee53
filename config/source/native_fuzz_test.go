package source

import (
	"errors"
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
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
		checkParse(t, Native, Location{Path: "f.json", Level: config.LevelUser}, data, Env{})
		servers, _, err := ParseNative("f.json", data, config.LevelUser, testEnv)
		if err != nil {
			return
		}
		for _, c := range servers {
			if c.Err != nil {
				var d *config.Diagnostic
				if !errors.As(c.Err, &d) || d.Line < 1 || d.Column < 1 {
					t.Errorf("server %q: badly positioned error %v", c.Name, c.Err)
				}
				continue
			}
			// A usable server is valid and fully substituted. A disabled
			// one is neither looked at nor substituted (DESIGN.md,
			// "Discovery"): what it would not use is not its error.
			if c.Disabled {
				continue
			}
			if err := config.Validate(&c); err != nil {
				t.Errorf("server %q has no Err but config.Validate says %v", c.Name, err)
			}
		}
	})
}
