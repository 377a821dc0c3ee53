package source

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/config"
)

// TestDecodeRules holds the decoder's rules on the cases a review found
// slipping.
func TestDecodeRules(t *testing.T) {
	one := func(t *testing.T, p *Provider, file, in string) Entry {
		t.Helper()
		entries, _, err := p.Parse(Location{Path: file, Level: config.LevelUser}, []byte(in), Env{})
		if err != nil || len(entries) != 1 {
			t.Fatalf("Parse = %v, %v; want one entry", entries, err)
		}
		return entries[0]
	}
	t.Run("YAML booleans in env are the booleans", func(t *testing.T) {
		e := one(t, gooseFormat, "config.yaml", "extensions:\n  a:\n    type: stdio\n    cmd: x\n    envs: {A: True, B: FALSE, C: yes}\n")
		if diff := cmp.Diff(map[string]string{"A": "true", "B": "false", "C": "yes"}, e.Config.Env); diff != "" {
			t.Errorf("env (-want +got):\n%s", diff)
		}
	})
	t.Run("Codex has no headers key", func(t *testing.T) {
		e := one(t, codexFormat, "config.toml", "[mcp_servers.a]\nurl = \"https://h\"\nheaders = {X = \"v\"}\n")
		if e.Config.Err != nil || e.Config.Headers != nil {
			t.Errorf("headers = %v, err = %v; want the key ignored", e.Config.Headers, e.Config.Err)
		}
	})
	t.Run("the type survives an earlier field's error", func(t *testing.T) {
		e := one(t, cursorFormat, "mcp.json", `{"mcpServers": {"a": {"args": 1, "type": "sse", "url": "https://h"}}}`)
		if e.Config.Err == nil || e.Config.Type != config.TransportSSE {
			t.Errorf("type = %q, err = %v; want sse and the args error", e.Config.Type, e.Config.Err)
		}
	})
	t.Run("a later error on a renamed key points into the tool's field", func(t *testing.T) {
		for _, tc := range []struct {
			p        *Provider
			file, in string
			want     string
		}{
			// No HOME to expand "~" with.
			{gooseFormat, "config.yaml", "extensions:\n  a:\n    type: stdio\n    cmd: ~/bin/x\n", `config.yaml:4:10: server "a": field "command"`},
			{gooseFormat, "config.yaml", "extensions:\n  a:\n    cmd: x\n    env_keys: [OK, NOPE]\n", `config.yaml:4:20: server "a": field "env.NOPE"`},
			{codexFormat, "config.toml", "[mcp_servers.a]\nurl = \"https://h\"\nbearer_token_env_var = \"NOPE\"\n", `config.toml:3:24: server "a": field "headers.Authorization"`},
			{codexFormat, "config.toml", "[mcp_servers.a]\ncommand = \"x\"\nenv_vars = [\"A\"]\ncwd = \"~/w\"\n", `config.toml:4:7: server "a": field "cwd"`},
			{opencodeFormat, "opencode.json", `{"mcp": {"a": {"type": "local", "command": ["x", "{file:~/k}"]}}}`, `opencode.json:1:50: server "a": field "args[0]"`},
			{zedFormat, "settings.json", `{"context_servers": {"a": {"command": {"path": "~/x"}}}}`, `settings.json:1:48: server "a": field "command"`},
		} {
			e := one(t, tc.p, tc.file, tc.in)
			err := e.Substitute(config.MapLookup(map[string]string{"OK": "1"}))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("%s: %v\nwant %s…", tc.p.Name, err, tc.want)
			}
		}
	})
}

// TestBareVariablesLong: rewriting $NAME is linear, so a huge value in a
// cloned repository's file cannot stall discovery (quadratic, 2 MB took
// minutes).
func TestBareVariablesLong(t *testing.T) {
	in := "$" + strings.Repeat("A", 2<<20)
	out, err := bareVariables(in)
	if err != nil || len(out) != len(in)+2 {
		t.Fatalf("len %d, %v", len(out), err)
	}
}
