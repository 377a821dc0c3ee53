package discover

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUserServerNamingTheProjectWaitsForTrust: a user-level definition
// that names the untrusted project in any field that reaches the process
// (command, args, cwd, env values) would run the repository's
// files, so it waits for trust like the project's own servers; one that
// names another folder does not.
func TestUserServerNamingTheProjectWaitsForTrust(t *testing.T) {
	m := newMachine(t)
	m.write("~/.config/Code/User/mcp.json", `{"servers": {
  "path":       {"command": "python3", "args": ["-m", "srv"], "env": {"PATH": "${workspaceFolder}/.venv/bin:/usr/bin"}},
  "pythonpath": {"command": "python3", "args": ["-m", "srv"], "env": {"PYTHONPATH": "${workspaceFolder}"}},
  "shell":      {"command": "sh", "args": ["-c", "cd ${workspaceFolder}&&./run.sh"]},
  "semicolon":  {"command": "sh", "args": ["-c", "cd ${workspaceFolder};./run.sh"]},
  "pipe":       {"command": "sh", "args": ["-c", "cat ${workspaceFolder}|sh"]},
  "assign":     {"command": "srv", "args": ["--root=${workspaceFolder}"]},
  "other":      {"command": "srv", "args": ["/elsewhere${workspaceFolder}"]},
  "cwd":        {"command": "srv", "cwd": "${workspaceFolder}/tools"},
  "command":    {"command": "${workspaceFolder}/bin/srv"},
  "sibling":    {"command": "srv", "args": ["${workspaceFolder}-old", "${workspaceFolder}.bak", "${workspaceFolder}_2"]},
  "relcwd":     {"command": "sh", "args": ["-c", "sh ./evil.sh"], "cwd": "../${workspaceFolderBasename}"},
  "uri":        {"command": "sh", "args": ["-c", "x", "file://${workspaceFolder}"]},
  "include":    {"command": "cc", "args": ["-I${workspaceFolder}"]},
  "envuri":     {"command": "srv", "env": {"WS": "file://${workspaceFolder}"}},
  "homepath":   {"command": "srv", "args": ["${userHome}/../${workspaceFolderBasename}/evil.sh"]},
  "dotdot":     {"command": "srv", "args": ["${workspaceFolder}/../${workspaceFolderBasename}//x"]},
  "link":       {"command": "srv", "args": ["LINK/evil.sh"]},
  "plain":      {"command": "srv", "args": ["--verbose"], "env": {"PATH": "/usr/bin"}}
}}`)
	link := filepath.Join(filepath.Dir(m.home), "link")
	if err := os.Symlink(m.project, link); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(m.home, ".config/Code/User/mcp.json")
	data, _ := os.ReadFile(cfg)
	m.write(cfg, strings.ReplaceAll(string(data), "LINK", link))
	d := m.discover()
	if d.ProjectTrusted {
		t.Fatal("the project is trusted")
	}
	want := map[string]bool{
		"path": true, "pythonpath": true, "shell": true, "semicolon": true, "pipe": true,
		"assign": true, "other": false, "cwd": true, "command": true,
		"sibling": false, "plain": false,
		"relcwd": true, "uri": true, "include": true, "envuri": true, "homepath": true, "dotdot": true, "link": true,
	}
	for _, c := range d.Servers {
		w, ok := want[c.Name]
		if !ok {
			continue
		}
		delete(want, c.Name)
		if c.Untrusted != w {
			t.Errorf("%s: untrusted = %v, want %v (%s %s %v)", c.Name, c.Untrusted, w, c.Command, strings.Join(c.Args, " "), c.Env)
		}
	}
	for name := range want {
		t.Errorf("%s: not discovered", name)
	}

	// Trusted, the same definitions run.
	d = m.discover(func(o *Options) { o.TrustProject = true })
	for _, c := range d.Servers {
		if c.Untrusted {
			t.Errorf("%s: untrusted in a trusted project", c.Name)
		}
	}
}

// TestSwitchboardItselfIsNotStarted: an entry that starts 'switchboard
// serve' (what 'client connect' writes into a client app's config) is
// left out of another tool's file, however its path is written, with the
// reason among the lost definitions; switchboard's other subcommands (the
// bundled demo server) and other programs are not. In our own file it is
// the server's own error.
func TestSwitchboardItselfIsNotStarted(t *testing.T) {
	m := newMachine(t)
	entries := `{"mcpServers": {
  "self":      {"command": "/usr/local/bin/switchboard", "args": ["serve"]},
  "flags":     {"command": "switchboard", "args": ["--no-project", "serve", "--servers", "a"]},
  "exe":       {"command": "C:\\Tools\\Switchboard.exe", "args": ["serve"]},
  "env":       {"command": "/usr/bin/env", "args": ["-i", "HOME=/x", "switchboard", "serve"]},
  "envu":      {"command": "env", "args": ["-u", "SWITCHBOARD_STARTED_BY", "/opt/bin/switchboard", "serve"]},
  "cfgflag":   {"command": "switchboard", "args": ["--config", "/x/mcp.json", "serve"]},
  "short":     {"command": "switchboard", "args": ["-c", "mcp.json", "--exclude", "serve", "serve", "--http", "127.0.0.1:0"]},
  "demo":      {"command": "switchboard", "args": ["demo-server"]},
  "other":     {"command": "switchboard-helper", "args": ["serve"]},
  "list":      {"command": "switchboard", "args": ["list"]}
}}`
	m.write("~/.claude.json", entries)
	d := m.discover()
	self := map[string]bool{"self": true, "flags": true, "exe": true, "env": true, "envu": true, "cfgflag": true, "short": true}
	for _, c := range d.Servers {
		if self[c.Name] {
			t.Errorf("%s: listed as a server (err %v); want it left out", c.Name, c.Err)
		}
		if c.Err != nil {
			t.Errorf("%s: %v", c.Name, c.Err)
		}
	}
	if len(d.Servers) != 3 {
		t.Errorf("%d servers, want demo, other and list", len(d.Servers))
	}
	for _, sh := range d.Shadowed {
		if self[sh.Config.Name] && strings.Contains(sh.Reason, "how Claude Code reaches switchboard") {
			delete(self, sh.Config.Name)
		}
	}
	for name := range self {
		t.Errorf("%s: not among the lost definitions with its reason", name)
	}

	m = newMachine(t)
	m.write("~/.config/switchboard/mcp.json", `{"mcpServers": {"self": {"command": "switchboard", "args": ["serve"]}}}`)
	d = m.discover()
	if len(d.Servers) != 1 || d.Servers[0].Err == nil || !strings.Contains(d.Servers[0].Err.Error(), "switchboard itself") {
		t.Errorf("in our own file: %+v, want the self error", d.Servers)
	}
}

// TestProject: a project is a folder a person works in — one with a
// project config of any tool, or in a repository — never whatever the
// working directory happens to be, nor home or /.
func TestProject(t *testing.T) {
	m := newMachine(t)
	root := filepath.Dir(m.home)
	mk := func(p string) string {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	repo := mk("repo")
	mk("repo/.git")
	sub := mk("repo/src/pkg")
	cfg := mk("configured")
	m.write(filepath.Join(cfg, ".mcp.json"), `{"mcpServers": {}}`)
	plain := mk("plain")
	inHomeRepo := filepath.Join(m.home, "work")
	if err := os.MkdirAll(filepath.Join(m.home, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(inHomeRepo, 0o755); err != nil {
		t.Fatal(err)
	}
	env := m.opts().Env
	for _, tc := range []struct{ dir, want string }{
		{repo, repo},
		{sub, sub},
		{cfg, cfg},
		{plain, ""},
		{m.home, ""},
		{inHomeRepo, ""}, // a home kept in git is not everyone's project
		{"/", ""},
	} {
		if got := Project(context.Background(), tc.dir, env); got != tc.want {
			t.Errorf("Project(%s) = %q, want %q", tc.dir, got, tc.want)
		}
	}
}
