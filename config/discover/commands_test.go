package discover

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/config"
)

func TestCommandSubstitution(t *testing.T) {
	m := newMachine(t)
	count := filepath.Join(t.TempDir(), "count")
	counted := fmt.Sprintf("!echo run >> %s; printf 'tok-%%s' 42", count)
	m.write("~/.config/switchboard/mcp.json", fmt.Sprintf(`{"mcpServers": {
  "ok":      {"command": "a", "env": {"TOKEN": %q, "LIT": "!!not a command", "PLAIN": "x"}},
  "same":    {"url": "https://same.example/mcp", "headers": {"Authorization": %q}},
  "fails":   {"command": "b", "env": {"TOKEN": "!echo SECRET-OUT; echo 'vault is locked' >&2; exit 3"}},
  "newline": {"url": "https://n.example/mcp", "headers": {"X": "!printf 'a\\nb'"}},
  "off":     {"command": "c", "disabled": true, "env": {"T": "!echo ran >> %s.off"}}
}}`, counted, counted, count))
	m.write("~/.cursor/mcp.json", fmt.Sprintf(`{"mcpServers": {"ok": {"command": "shadowed", "env": {"T": "!echo ran >> %s.shadowed"}}}}`, count))
	m.write("./.switchboard/mcp.json", `{"mcpServers": {"proj": {"command": "p", "env": {"T": "!echo project-secret"}}}}`)

	for range 2 {
		d := m.discover()
		byName := map[string]config.ServerConfig{}
		for _, c := range d.Servers {
			byName[c.Name] = c
		}
		ok := byName["ok"]
		if ok.Err != nil || ok.Env["TOKEN"] != "tok-42" || ok.Env["LIT"] != "!not a command" || ok.Env["PLAIN"] != "x" {
			t.Errorf("ok: %v %v", ok.Env, ok.Err)
		}
		if got := byName["same"].Headers["Authorization"]; got != "tok-42" {
			t.Errorf("same: %q", got)
		}
		err := byName["fails"].Err
		if err == nil || !strings.Contains(err.Error(), `field "env.TOKEN": command "echo SECRET-OUT; echo 'vault is locked' >&2; exit 3" failed: exit status 3: vault is locked`) {
			t.Errorf("fails: %v", err)
		}
		if err != nil && strings.Count(err.Error(), "SECRET-OUT") != 1 { // only in the quoted command, never as output
			t.Errorf("stdout leaked: %v", err)
		}
		if err := byName["newline"].Err; err == nil || !strings.Contains(err.Error(), "line break") {
			t.Errorf("newline: %v", err)
		}
		// An untrusted project may not run commands.
		proj := byName["proj"]
		if !proj.Untrusted || !errors.Is(proj.Err, ErrCommandNotAllowed) {
			t.Errorf("proj: untrusted=%v err=%v", proj.Untrusted, proj.Err)
		}
	}
	// Cached: one run for two servers and two discoveries. Disabled and
	// shadowed servers run nothing.
	if data, _ := os.ReadFile(count); string(data) != "run\n" {
		t.Errorf("command ran %q", data)
	}
	for _, suffix := range []string{".off", ".shadowed"} {
		if _, err := os.Stat(count + suffix); err == nil {
			t.Errorf("a %s server's command ran", suffix[1:])
		}
	}

	// SkipCommands runs nothing and leaves the values as written.
	for _, c := range m.discover(func(o *Options) { o.SkipCommands = true }).Servers {
		if c.Name == "fails" && (c.Err != nil || !strings.HasPrefix(c.Env["TOKEN"], "!echo SECRET-OUT")) {
			t.Errorf("SkipCommands: %v %v", c.Env, c.Err)
		}
	}

	// A trusted project may.
	d := m.discover(func(o *Options) { o.TrustProject = true })
	for _, c := range d.Servers {
		if c.Name == "proj" && (c.Err != nil || c.Env["T"] != "project-secret") {
			t.Errorf("trusted proj: %v %v", c.Env, c.Err)
		}
	}
}

// TestCommandsOnlyInOurFiles: no other tool runs "!command" values, so in
// their files one is a literal value, even in the person's own file or a
// trusted project: nothing runs and nothing is unescaped. Crush's own
// $(command) does run, and its literal "!" stays literal.
func TestCommandsOnlyInOurFiles(t *testing.T) {
	m := newMachine(t)
	ran := filepath.Join(t.TempDir(), "ran")
	m.write("~/.cursor/mcp.json", fmt.Sprintf(`{"mcpServers": {"cursor": {"command": "c", "env": {"T": "!touch %s", "L": "!!x"}}}}`, ran))
	m.write("./.mcp.json", fmt.Sprintf(`{"mcpServers": {"claude": {"command": "p", "env": {"T": "!touch %s"}}}}`, ran))
	m.write("~/.config/crush/crush.json", `{"mcp": {"crush": {"type": "stdio", "command": "k", "env": {"T": "$(printf crush-%s 1)", "L": "!literal"}}}}`)
	d := m.discover(func(o *Options) { o.TrustProject = true })
	want := map[string]map[string]string{
		"cursor": {"T": "!touch " + ran, "L": "!!x"},
		"claude": {"T": "!touch " + ran},
		"crush":  {"T": "crush-1", "L": "!literal"},
	}
	for _, c := range d.Servers {
		if diff := cmp.Diff(want[c.Name], c.Env); diff != "" || c.Err != nil {
			t.Errorf("%s: env (-want +got):\n%s err=%v", c.Name, diff, c.Err)
		}
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("a \"!command\" in another tool's file ran")
	}
}

// TestCommandsNeedARunner: with no Options.RunCommand, discovery runs
// nothing and says so on the server.
func TestCommandsNeedARunner(t *testing.T) {
	m := newMachine(t)
	m.write("~/.config/switchboard/mcp.json", `{"mcpServers": {"s": {"command": "a", "env": {"T": "!echo hi"}}}}`)
	d := m.discover(func(o *Options) { o.RunCommand = nil })
	if err := d.Servers[0].Err; !errors.Is(err, ErrNoCommandRunner) || !strings.Contains(err.Error(), `mcp.json:1:52: server "s": field "env.T"`) {
		t.Errorf("err = %v, want ErrNoCommandRunner at the field", err)
	}
}

// The oauth secrets take "!command" too, in our files, and a project
// that is not trusted may not run them.
func TestCommandsInOAuthSecrets(t *testing.T) {
	m := newMachine(t)
	m.write("~/.config/switchboard/mcp.json", `{"mcpServers": {
  "cc":  {"url": "https://cc.example/mcp", "oauth": {"grant": "client_credentials", "clientId": "c", "clientSecret": "!printf cc-secret"}},
  "ent": {"url": "https://e.example/mcp", "oauth": {"grant": "enterprise", "clientId": "c",
          "identityProvider": {"issuer": "https://idp.example", "clientId": "i", "idToken": "!printf id-token", "clientSecret": "!!lit"}}}
}}`)
	m.write("./.switchboard/mcp.json", `{"mcpServers": {"proj": {"url": "https://p.example/mcp", "oauth": {"clientId": "c", "clientSecret": "!printf project"}}}}`)
	byName := map[string]config.ServerConfig{}
	for _, c := range m.discover().Servers {
		byName[c.Name] = c
	}
	if c := byName["cc"]; c.Err != nil || c.OAuth.ClientSecret != "cc-secret" {
		t.Errorf("cc: %+v %v", c.OAuth, c.Err)
	}
	if c := byName["ent"]; c.Err != nil || c.OAuth.IdentityProvider.IDToken != "id-token" || c.OAuth.IdentityProvider.ClientSecret != "!lit" {
		t.Errorf("ent: %+v %v", c.OAuth.IdentityProvider, c.Err)
	}
	if c := byName["proj"]; !errors.Is(c.Err, ErrCommandNotAllowed) {
		t.Errorf("untrusted project's oauth command: %v", c.Err)
	}
}
