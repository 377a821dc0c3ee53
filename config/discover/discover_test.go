package discover

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/config/trust"
	"github.com/switchboard-mcp/switchboard/internal/secretcmd"
)

// machine is a fake home and project for discovery tests.
type machine struct {
	t       *testing.T
	home    string
	project string
	state   string
	policy  string
	vars    map[string]string
	// secrets is shared by every discovery of the machine, as the CLI
	// shares one for the life of its process.
	secrets *secretcmd.Runner
}

func newMachine(t *testing.T) *machine {
	root := t.TempDir()
	m := &machine{
		t:       t,
		home:    filepath.Join(root, "home"),
		project: filepath.Join(root, "proj"),
		state:   filepath.Join(root, "state"),
		policy:  filepath.Join(root, "policy.json"),
		vars:    map[string]string{"TOKEN": "tok"},
		secrets: new(secretcmd.Runner),
	}
	for _, d := range []string{m.home, m.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// write writes a file under home ("~/…"), the project ("./…") or an
// absolute path.
func (m *machine) write(name, data string) string {
	m.t.Helper()
	var p string
	switch {
	case strings.HasPrefix(name, "~/"):
		p = filepath.Join(m.home, name[2:])
	case strings.HasPrefix(name, "./"):
		p = filepath.Join(m.project, name[2:])
	default:
		p = name
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		m.t.Fatal(err)
	}
	return p
}

func (m *machine) opts() Options {
	return Options{
		Env:        source.Env{Home: m.home, ProjectDir: m.project, GOOS: "linux", Lookup: config.MapLookup(m.vars)},
		StateDir:   m.state,
		PolicyPath: m.policy,
		RunCommand: m.secrets.Run,
	}
}

func (m *machine) discover(mod ...func(*Options)) *Discovery {
	m.t.Helper()
	o := m.opts()
	for _, f := range mod {
		f(&o)
	}
	return Discover(context.Background(), o)
}

// summary renders each server as name:provider:level plus its marks.
func summary(servers []config.ServerConfig) []string {
	var out []string
	for _, c := range servers {
		s := fmt.Sprintf("%s:%s:%s", c.Name, c.Source.Provider, c.Source.Level)
		if c.Disabled {
			s += " disabled"
		}
		if c.Untrusted {
			s += " untrusted"
		}
		if c.Blocked != "" {
			s += " blocked=" + c.Blocked
		}
		if c.DuplicateOf != "" {
			s += " duplicateOf=" + c.DuplicateOf
		}
		if c.Err != nil {
			s += " err=" + c.Err.Error()
		}
		out = append(out, s)
	}
	return out
}

func shadowSummary(sh []Shadowed) []string {
	var out []string
	for _, s := range sh {
		out = append(out, fmt.Sprintf("%s:%s:%s -> %s", s.Config.Name, s.Config.Source.Provider, s.Config.Source.Level, s.By.Provider))
	}
	return out
}

func (m *machine) wantServers(d *Discovery, want ...string) {
	m.t.Helper()
	if diff := cmp.Diff(want, summary(d.Servers)); diff != "" {
		m.t.Errorf("servers (-want +got):\n%s", diff)
	}
}

// several writes the same machine the end-to-end script uses: a native
// user config, Claude Code (user, local and project scope), Cursor and VS
// Code.
func (m *machine) several() {
	m.write("~/.config/switchboard/mcp.json", `{"mcpServers": {
  "off": {"command": "off-mcp", "disabled": true}
}}`)
	m.write("~/.claude.json", fmt.Sprintf(`{
  "projects": {%q: {"mcpServers": {"local": {"command": "local-mcp"}}}},
  "mcpServers": {
    "github": {"type": "http", "url": "https://api.github.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
    "fs": {"command": "fs-mcp", "args": ["/data"]}
  }
}`, m.project))
	m.write("./.mcp.json", `{"mcpServers": {
  "github": {"command": "evil-github"},
  "project-only": {"command": "proj-mcp"}
}}`)
	m.write("~/.cursor/mcp.json", `{"mcpServers": {
  "fs": {"command": "other-fs"},
  "off": {"command": "on-mcp"},
  "files": {"command": "fs-mcp", "args": ["/data"]},
  "gh2": {"url": "https://api.github.com/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}}
}}`)
	m.write("~/.config/Code/User/mcp.json", `{
  // VS Code
  "servers": {"linear": {"type": "http", "url": "https://mcp.linear.app/mcp"}},
}`)
}

// A server's identity is its whole resolved transport: the same program
// with another environment, or the same url with other headers, is
// another server, not a duplicate.
func TestDuplicateIsTheWholeTransport(t *testing.T) {
	m := newMachine(t)
	m.vars["OTHER"] = "tok2"
	m.write("~/.claude.json", `{"mcpServers": {
  "notes": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"MEMORY_FILE_PATH": "/n/notes.json"}},
  "todo": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"MEMORY_FILE_PATH": "/n/todo.json"}},
  "notes-again": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"MEMORY_FILE_PATH": "/n/notes.json"}},
  "work": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
  "home": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${OTHER}"}},
  "work-again": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
}}`)
	m.wantServers(m.discover(),
		"notes:Claude Code:user",
		"todo:Claude Code:user",
		"notes-again:Claude Code:user duplicateOf=notes",
		"work:Claude Code:user",
		"home:Claude Code:user",
		"work-again:Claude Code:user duplicateOf=work",
	)
}

func TestDiscoverPrecedence(t *testing.T) {
	m := newMachine(t)
	m.several()
	d := m.discover()
	m.wantServers(d,
		"off:switchboard:user disabled", // a disabled entry claims its name
		"local:Claude Code:user",        // local scope, before the project file
		"project-only:Claude Code:project untrusted",
		"github:Claude Code:user", // the untrusted project entry did not claim "github"
		"fs:Claude Code:user",
		"files:Cursor:user duplicateOf=fs",
		"gh2:Cursor:user duplicateOf=github",
		"linear:VS Code:user",
	)
	if diff := cmp.Diff([]string{
		"off:Cursor:user -> switchboard",
		"github:Claude Code:project -> Claude Code",
		"fs:Cursor:user -> Claude Code",
	}, shadowSummary(d.Shadowed)); diff != "" {
		t.Errorf("shadowed (-want +got):\n%s", diff)
	}
	if r := d.Shadowed[1].Reason; !strings.HasPrefix(r, "the project is not trusted, so the name goes to the definition in Claude Code, ") {
		t.Errorf("reason %q", r)
	}
	if r := d.Shadowed[2].Reason; !strings.HasPrefix(r, "shadowed by the definition in Claude Code, "+filepath.Join(m.home, ".claude.json")+":5") {
		t.Errorf("reason %q", r)
	}
	if d.ProjectTrusted || len(d.ProjectFiles) != 1 || d.ProjectFiles[0].Path != filepath.Join(m.project, ".mcp.json") {
		t.Errorf("project files %v, trusted %v", d.ProjectFiles, d.ProjectTrusted)
	}
	if len(d.Errors) != 0 || len(d.Warnings) != 0 {
		t.Errorf("errors %v, warnings %v", d.Errors, d.Warnings)
	}
	// Substitution happened: the header has the token.
	if got := d.Servers[3].Headers["Authorization"]; got != "Bearer tok" {
		t.Errorf("github header = %q", got)
	}

	// Every location is reported, found or not, with what it gave and lost.
	var found []string
	for _, s := range d.Sources {
		if s.Found {
			found = append(found, fmt.Sprintf("%s %s %s %v lost=%d", s.ID, s.Level, s.Key, s.Servers, len(s.Lost)))
		}
	}
	if diff := cmp.Diff([]string{
		"switchboard user  [off] lost=0",
		"claude-code user local [local] lost=0",
		"claude-code project  [project-only] lost=1",
		"claude-code user  [github fs] lost=0",
		"cursor user  [files gh2] lost=2",
		"vscode user  [linear] lost=0",
	}, found); diff != "" {
		t.Errorf("found sources (-want +got):\n%s", diff)
	}
	if len(d.Sources) < 15 {
		t.Errorf("only %d locations reported", len(d.Sources))
	}
	for _, s := range d.Sources {
		if s.ID == "cursor" && s.Level == config.LevelUser {
			if len(s.Lost) != 2 || s.Lost[1].To == nil || s.Lost[1].To.Provider != "Claude Code" || s.Lost[1].Name != "fs" {
				t.Errorf("cursor lost %+v", s.Lost)
			}
		}
	}
}

func TestDiscoverTrust(t *testing.T) {
	m := newMachine(t)
	m.several()
	files := ScanProject(context.Background(), m.opts())
	if len(files) != 1 || files[0].Provider != "Claude Code" || strings.Join(files[0].Servers, ",") != "github,project-only" {
		t.Fatalf("ScanProject = %+v", files)
	}
	if err := trust.Record(m.state, m.project, files); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(m.state, trust.FileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("trust store: %v, %v", fi, err)
	}
	d := m.discover()
	if !d.ProjectTrusted {
		t.Fatalf("not trusted after TrustProject: %v", d.Errors)
	}
	// Trusted, the project's github comes first (project before user).
	if got := summary(d.Servers)[2:4]; !cmp.Equal(got, []string{"github:Claude Code:project", "project-only:Claude Code:project"}) {
		t.Errorf("trusted project servers = %v", got)
	}

	// A changed file needs trust again; so does a new one.
	m.write("./.mcp.json", `{"mcpServers": {"project-only": {"command": "changed"}}}`)
	if d := m.discover(); d.ProjectTrusted || !d.Servers[2].Untrusted {
		t.Errorf("a changed file is still trusted: %v", summary(d.Servers))
	}
	files = ScanProject(context.Background(), m.opts())
	if err := trust.Record(m.state, m.project, files); err != nil {
		t.Fatal(err)
	}
	if d := m.discover(); !d.ProjectTrusted {
		t.Errorf("not trusted again")
	}
	m.write("./.cursor/mcp.json", `{"mcpServers": {}}`)
	if d := m.discover(); d.ProjectTrusted {
		t.Errorf("a new project file is still trusted")
	}

	// --trust-project trusts without the store.
	if d := m.discover(func(o *Options) { o.TrustProject = true }); !d.ProjectTrusted || d.Servers[2].Untrusted {
		t.Errorf("TrustProject option ignored: %v", summary(d.Servers))
	}
}

func TestTrustStoreCorrupt(t *testing.T) {
	m := newMachine(t)
	m.write("./.mcp.json", `{"mcpServers": {"p": {"command": "p"}}}`)
	m.write(filepath.Join(m.state, trust.FileName), "{not json")
	d := m.discover()
	if d.ProjectTrusted || len(d.Errors) != 1 || !strings.Contains(d.Errors[0].Error(), "trust store") {
		t.Errorf("trusted=%v errors=%v", d.ProjectTrusted, d.Errors)
	}
	// Trusting replaces the corrupt store.
	if err := trust.Record(m.state, m.project, ScanProject(context.Background(), m.opts())); err != nil {
		t.Fatal(err)
	}
	if d := m.discover(); !d.ProjectTrusted || len(d.Errors) != 0 {
		t.Errorf("trusted=%v errors=%v", d.ProjectTrusted, d.Errors)
	}
}

func TestDiscoverFilters(t *testing.T) {
	m := newMachine(t)
	m.several()
	d := m.discover(func(o *Options) {
		o.NoProjectConfig = true
		o.ExcludeNames = []string{"lin*"}
		o.Filter = func(c config.ServerConfig) bool {
			if c.Name == "fs" && c.Source.Provider == "Claude Code" {
				return false // taken over by the embedder; the next "fs" is asked
			}
			return c.Name != "local"
		}
	})
	m.wantServers(d,
		"off:switchboard:user disabled",
		"github:Claude Code:user",
		"fs:Cursor:user",
		"files:Cursor:user",
		"gh2:Cursor:user duplicateOf=github",
	)
	var reasons []string
	for _, s := range d.Shadowed {
		reasons = append(reasons, s.Config.Name+": "+s.Reason)
	}
	want := []string{
		"github: project config is turned off",
		"project-only: project config is turned off",
		`linear: excluded by the pattern "lin*"`,
		"local: dropped by the discovery filter",
		"fs: dropped by the discovery filter",
	}
	for _, w := range want {
		if !contains(reasons, w) {
			t.Errorf("no loss %q in %q", w, reasons)
		}
	}
	if len(d.ProjectFiles) != 1 || d.ProjectTrusted {
		t.Errorf("project files %d trusted %v", len(d.ProjectFiles), d.ProjectTrusted)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestDiscoverPolicy(t *testing.T) {
	m := newMachine(t)
	m.several()
	m.write(m.policy, `{
  "deny": [{"command": "evil-*"}, {"name": "linear"}],
  "allowRemote": true
}`)
	d := m.discover(func(o *Options) { o.TrustProject = true })
	m.wantServers(d,
		"off:switchboard:user disabled",
		"local:Claude Code:user",
		"project-only:Claude Code:project",
		"github:Claude Code:user", // the blocked project entry did not claim the name
		"fs:Claude Code:user",
		"files:Cursor:user duplicateOf=fs",
		"gh2:Cursor:user duplicateOf=github",
		`linear:VS Code:user blocked=deny rule 2 (name "linear")`,
	)
	if r := d.Shadowed[1].Reason; !strings.HasPrefix(r, `it is blocked by policy: deny rule 1 (command "evil-*"), so the name goes to`) {
		t.Errorf("reason %q", r)
	}

	// An allow list blocks everything it does not name; switches block by kind.
	m.write(m.policy, `{"allow": [{"name": "git*"}, {"name": "gh?"}, {"url": "https://mcp.linear.app/*"}], "allowStdio": false}`)
	d = m.discover()
	for _, c := range d.Servers {
		want := ""
		switch c.Name {
		case "github", "gh2", "linear":
		case "off", "local", "fs", "files", "project-only":
			want = "not in the policy's allow list"
		}
		if c.Blocked != want {
			t.Errorf("%s: blocked %q, want %q", c.Name, c.Blocked, want)
		}
	}
	m.write(m.policy, `{"allow": [{"name": "*"}], "allowStdio": false, "allowRemote": false}`)
	for _, c := range m.discover().Servers {
		if !strings.HasPrefix(c.Blocked, "the policy forbids ") {
			t.Errorf("%s: blocked %q", c.Name, c.Blocked)
		}
	}
}

func TestDiscoverPolicyFailsClosed(t *testing.T) {
	m := newMachine(t)
	m.several()
	m.write(m.policy, "{\n  \"deny\": [{\"nmae\": \"x\"}]\n}")
	d := m.discover()
	want := "policy file " + m.policy + `: 2:13: field "deny[0].nmae": unknown field (want name, command or url)`
	for _, c := range d.Servers {
		if c.Blocked != want {
			t.Errorf("%s: blocked %q, want %q", c.Name, c.Blocked, want)
		}
	}
	if len(d.Errors) != 1 || !strings.Contains(d.Errors[0].Error(), "every server is blocked") {
		t.Errorf("errors %v", d.Errors)
	}
	// Unreadable: a directory where the file should be.
	if err := os.Remove(m.policy); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(m.policy, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range m.discover().Servers {
		if !strings.HasPrefix(c.Blocked, "policy file "+m.policy+": ") {
			t.Errorf("%s: blocked %q", c.Name, c.Blocked)
		}
	}
}

func TestDiscoverSourceErrors(t *testing.T) {
	m := newMachine(t)
	m.several()
	m.write("~/.cursor/mcp.json", "{\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"x\",\n}")
	if err := os.MkdirAll(filepath.Join(m.home, ".gemini", "settings.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	m.write("~/.kiro/settings/mcp.json", `{"mcpServers": {"k": {"command": "k", "disabled": "yes", "autoApprove": 3}}}`)
	d := m.discover()
	var errs []string
	for _, e := range d.Errors {
		errs = append(errs, e.Error())
	}
	want := []string{
		filepath.Join(m.home, ".cursor/mcp.json") + ":4:2: unexpected end of input (is the file truncated?)",
		filepath.Join(m.home, ".gemini/settings.json") + ": not a regular file (a directory); switchboard reads only regular files",
	}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	// The others go on; the bad Kiro entry still claims its name.
	names := summary(d.Servers)
	if len(names) != 7 || !strings.HasPrefix(names[6], `k:Kiro:user err=`+filepath.Join(m.home, ".kiro/settings/mcp.json")+`:1:51: server "k": field "disabled": want true or false, got string`) {
		t.Errorf("servers %q", names)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0].Error(), `field "autoApprove": want an array of strings, got number; ignored`) {
		t.Errorf("warnings %v", d.Warnings)
	}
	for _, s := range d.Sources {
		if s.ID == "gemini" && s.Level == config.LevelUser && (!s.Found || s.Error == "") {
			t.Errorf("gemini source %+v", s)
		}
	}
}

func TestDiscoverSubstitution(t *testing.T) {
	m := newMachine(t)
	m.write("~/.config/switchboard/mcp.json", `{"mcpServers": {
  "a": {"command": "a", "env": {"T": "${TOKEN}", "U": "${NOPE}"}},
  "b": {"url": "https://x/{env:TOKEN}"}
}}`)
	m.write("./.vscode/mcp.json", `{"servers": {"v": {"command": "v", "args": ["${workspaceFolder}", "${env:TOKEN}"]}}}`)
	d := m.discover(func(o *Options) { o.TrustProject = true })
	if d.Servers[0].Err == nil || !strings.Contains(d.Servers[0].Err.Error(), `field "env.U": variable NOPE is not set`) {
		t.Errorf("a: %v", d.Servers[0].Err)
	}
	if d.Servers[1].URL != "https://x/tok" {
		t.Errorf("b: %q", d.Servers[1].URL)
	}
	if got := d.Servers[2].Args; !cmp.Equal(got, []string{m.project, "tok"}) {
		t.Errorf("v: %q", got)
	}
}

func TestDiscoverProjectIsHome(t *testing.T) {
	m := newMachine(t)
	m.project = m.home
	m.write("~/.cursor/mcp.json", `{"mcpServers": {"c": {"command": "c"}}}`)
	d := m.discover()
	m.wantServers(d, "c:Cursor:user")
	if len(d.ProjectFiles) != 0 {
		t.Errorf("project files %v", d.ProjectFiles)
	}
}

func TestDiscoverPanickingProvider(t *testing.T) {
	m := newMachine(t)
	m.write("~/boom.json", "{}")
	boom := &source.Provider{
		Name: "Boom", ID: "boom",
		Locations: func(env source.Env) []source.Location {
			return []source.Location{{Path: filepath.Join(env.Home, "boom.json"), Level: config.LevelUser}}
		},
		Parse: func(source.Location, []byte, source.Env) ([]source.Entry, []*config.Diagnostic, error) {
			panic("kaboom")
		},
		Sniff: func(string, []byte) bool { return false },
	}
	bad := &source.Provider{Name: "Bad", ID: "bad", Locations: func(source.Env) []source.Location { panic("no") }}
	d := m.discover(func(o *Options) { o.Providers = []*source.Provider{bad, boom, source.ByID("cursor")} })
	if len(d.Errors) != 2 || !strings.Contains(d.Errors[1].Error(), "kaboom") {
		t.Errorf("errors %v", d.Errors)
	}
}

func TestLoadFiles(t *testing.T) {
	m := newMachine(t)
	cursor := m.write("~/.cursor/mcp.json", `{"mcpServers": {"c": {"command": "c", "env": {"K": "${env:TOKEN}"}}}}`)
	vscode := m.write("~/somewhere/code.json", `{"servers": {"v": {"url": "https://v.example/mcp"}, "c": {"command": "other"}}}`)
	missing := filepath.Join(m.home, "missing.json")
	d := LoadFiles(context.Background(), []string{cursor, missing, vscode}, m.opts())
	m.wantServers(d, "c:Cursor:explicit", "v:VS Code:explicit")
	if d.Servers[0].Env["K"] != "tok" {
		t.Errorf("not substituted: %v", d.Servers[0].Env)
	}
	if len(d.Errors) != 1 || d.Errors[0].Error() != missing+": stat: no such file or directory" {
		t.Errorf("errors %v", d.Errors)
	}
	if len(d.Shadowed) != 1 || d.Shadowed[0].Config.Command != "other" {
		t.Errorf("shadowed %v", d.Shadowed)
	}
	if d.Sources[0].ID != "cursor" || d.Sources[2].ID != "vscode" || d.Sources[1].Found || d.Sources[1].ID != "switchboard" {
		t.Errorf("sources %+v", d.Sources)
	}
}

// TestWorkDirFollowsTrust: discovery says where each stdio server starts
// (outside an untrusted project, in a trusted one). A change of trust is a
// change of connection for a server that names a path relative to where
// it runs, so a watching host restarts it in the right place; any other
// takes the new place in place, at its next start (DependsOnWorkDir).
func TestWorkDirFollowsTrust(t *testing.T) {
	m := newMachine(t)
	m.write("~/.config/switchboard/mcp.json", `{"mcpServers": {"s": {"command": "x"}, "r": {"url": "https://r.example/mcp"}, "d": {"command": "x", "args": ["."]}}}`)
	before := m.discover()
	if before.ProjectTrusted || before.Servers[0].WorkDir != m.home {
		t.Fatalf("untrusted: trusted=%v workDir=%q, want the home directory", before.ProjectTrusted, before.Servers[0].WorkDir)
	}
	if before.Servers[1].WorkDir != "" {
		t.Errorf("a remote server got a work dir: %q", before.Servers[1].WorkDir)
	}
	if err := trust.Record(m.state, m.project, nil); err != nil {
		t.Fatal(err)
	}
	after := m.discover()
	if !after.ProjectTrusted || after.Servers[0].WorkDir != m.project {
		t.Fatalf("trusted: trusted=%v workDir=%q, want the project", after.ProjectTrusted, after.Servers[0].WorkDir)
	}
	diff := config.DiffConfigs(before.Servers, after.Servers)
	if !slices.Equal(diff.Changed, []string{"d"}) || !slices.Equal(diff.Updated, []string{"s"}) || !slices.Equal(diff.Unchanged, []string{"r"}) {
		t.Errorf("diff %+v, want d changed, s updated, r unchanged", diff)
	}
}

// TestProjectBudget: a clone's files are bounded in what they cost: one
// file of two million tiny values, and many files that add up, are each
// one error, and the person's own files still count (found by an
// attacker's pass: 20 such files took 7.9 GB).
func TestProjectBudget(t *testing.T) {
	m := newMachine(t)
	m.write("~/.cursor/mcp.json", `{"mcpServers": {"mine": {"command": "x"}}}`)
	m.write("./.gemini/settings.json", `{"mcpServers": {"a": {"command": "x", "args": [`+strings.Repeat(`1,`, 200_000)+`1]}}}`)
	big := `{"mcpServers": {"b": {"command": "x", "args": ["` + strings.Repeat("x", 3<<20) + `"]}}}`
	for i := range 6 {
		m.write(fmt.Sprintf("./.continue/mcpServers/%d.json", i), big)
	}
	d := m.discover()
	var values, total int
	for _, e := range d.Errors {
		switch {
		case strings.Contains(e.Error(), "values, more than"):
			values++
		case strings.Contains(e.Error(), "MiB in all"):
			total++
		}
	}
	if values != 1 || total == 0 {
		t.Errorf("errors %v: want one file over the value budget and the files past the total", d.Errors)
	}
	if len(d.Servers) == 0 || d.Servers[0].Name != "mine" {
		t.Errorf("servers %v: the person's own must still be read", summary(d.Servers))
	}
}
