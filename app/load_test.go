package app_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/discover"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// TestMain doubles as the demo server: a config that runs this test binary
// with SWITCHBOARD_DEMO_SERVER=1 gets a real MCP server child process.
func TestMain(m *testing.M) {
	if demoserver.Serving() {
		os.Exit(demoserver.Run(os.Args[1:]))
	}
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	goleak.VerifyTestMain(peers.Reporting(m)) // says in a line which tests skipped for want of promtool
}

// machine is a home, a project and a state directory of their own, and an
// environment that names them and nothing else.
type machine struct {
	dir, home, project, state, policy string
	env                               map[string]string
}

func newMachine(t *testing.T) *machine {
	t.Helper()
	dir := t.TempDir()
	m := &machine{dir: dir, home: filepath.Join(dir, "home"), project: filepath.Join(dir, "project"),
		state: filepath.Join(dir, "state"), policy: filepath.Join(dir, "policy.json")}
	for _, d := range []string{m.home, m.project, m.state} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	m.env = map[string]string{"HOME": m.home, "PATH": os.Getenv("PATH"), "SWITCHBOARD_POLICY": m.policy}
	return m
}

func (m *machine) options(files ...string) *app.LoadOptions {
	return &app.LoadOptions{ProjectDir: m.project, Files: files, StateDir: m.state, Lookup: config.MapLookup(m.env)}
}

// demoEntry is a config entry that runs this test binary as the demo
// server.
func demoEntry(t *testing.T, name string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`%q: {"command": %q, "args": ["--name", %q], "env": {%q: "1"}}`, name, exe, name, demo.EnvServerMode)
}

func writeConfig(t *testing.T, path string, entries ...string) {
	t.Helper()
	doc := `{"mcpServers": {`
	for i, e := range entries {
		if i > 0 {
			doc += ", "
		}
		doc += e
	}
	writeFile(t, path, doc+"}}")
}

// writeFile replaces path whole, as an editor's atomic save does: written
// in place, the file would be empty for a moment.
func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path+".tmp", []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

func names(servers []config.ServerConfig) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.Name)
	}
	return out
}

// TestLoad: the files named are read, excludes (the option's and
// $SWITCHBOARD_EXCLUDE's) apply, the files to watch are the file, the
// policy (absent) and the trust store, and the project is untrusted until
// trusted.
func TestLoad(t *testing.T) {
	m := newMachine(t)
	cfg := filepath.Join(m.dir, "mcp.json")
	writeConfig(t, cfg, demoEntry(t, "keep"), demoEntry(t, "flagged"), demoEntry(t, "secret-thing"))
	m.env["SWITCHBOARD_EXCLUDE"] = " secret-*, "
	opts := m.options(cfg)
	opts.Exclude = []string{"flag*"}
	l, err := app.Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"keep"}, names(l.Servers)); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	want := []string{cfg, m.policy, filepath.Join(m.state, "trust.json")}
	slices.Sort(want)
	if diff := cmp.Diff(want, l.Files); diff != "" {
		t.Errorf("files to watch (-want +got):\n%s", diff)
	}
	if l.Demo || len(l.Problems) > 0 || !l.UntrustedProject {
		t.Errorf("demo %v, problems %v, untrusted %v: want no demo, no problems, the project untrusted", l.Demo, l.Problems, l.UntrustedProject)
	}
	opts.TrustProject = true
	if l, err = app.Load(context.Background(), opts); err != nil || l.UntrustedProject {
		t.Errorf("--trust-project: untrusted %v, %v", l.UntrustedProject, err)
	}
}

// TestLoadFailsClosed: a source that does not parse holds the last good
// config (a source error); a broken policy fails closed: its problem
// holds nothing, and every server is blocked.
func TestLoadFailsClosed(t *testing.T) {
	m := newMachine(t)
	cfg := filepath.Join(m.dir, "mcp.json")
	writeFile(t, cfg, `{"mcpServers": {`)
	l, err := app.Load(context.Background(), m.options(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.SourceErrors()) != 1 || len(l.Problems) != 1 {
		t.Errorf("a half-written file: problems %v, source errors %v; want it as both", l.Problems, l.SourceErrors())
	}

	writeConfig(t, cfg, demoEntry(t, "a"))
	writeFile(t, m.policy, "garbage")
	l, err = app.Load(context.Background(), m.options(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Problems) != 1 || len(l.SourceErrors()) != 0 {
		t.Errorf("a broken policy: problems %v, source errors %v; want a problem that holds nothing", l.Problems, l.SourceErrors())
	}
	if len(l.Servers) != 1 || l.Servers[0].Admission() != config.AdmitBlocked {
		t.Errorf("a broken policy: servers %+v, want a blocked", l.Servers)
	}
}

// TestLoadDemo: the demo stands in when nothing is configured anywhere,
// judged by the policy; never for files named, nor when a source could
// not be read.
func TestLoadDemo(t *testing.T) {
	m := newMachine(t)
	stand := func() ([]config.ServerConfig, error) {
		return []config.ServerConfig{{Name: "demo", Command: "demo-server"}}, nil
	}
	opts := m.options()
	opts.Demo = stand
	l, err := app.Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Demo || !slices.Equal(names(l.Servers), []string{"demo"}) || l.Servers[0].Admission() != config.Admitted {
		t.Errorf("nothing configured: demo %v, servers %+v; want the demo, admitted", l.Demo, l.Servers)
	}
	if len(l.Files) == 0 {
		t.Error("the demo watches nothing: a config that appears would not be read")
	}

	writeFile(t, m.policy, `{"deny": [{"name": "*"}]}`)
	if l, err = app.Load(context.Background(), opts); err != nil || !l.Demo || l.Servers[0].Admission() != config.AdmitBlocked {
		t.Errorf("a deny-all policy: %+v, %v; want the demo blocked", l, err)
	}

	empty := filepath.Join(m.dir, "empty.json")
	writeFile(t, empty, `{"mcpServers": {}}`)
	opts = m.options(empty)
	opts.Demo = stand
	if l, err = app.Load(context.Background(), opts); err != nil || l.Demo || len(l.Servers) != 0 {
		t.Errorf("an empty file named: %+v, %v; want it empty", l, err)
	}

	l, err = app.FromDiscovery(&discover.Discovery{Errors: []error{errors.New("x")}}, &app.LoadOptions{Demo: stand})
	if err != nil || l.Demo {
		t.Errorf("a source that could not be read: %+v, %v; want no demo", l, err)
	}

	// An app connected before any server was added: its entry starts
	// switchboard itself, and the demo still stands in; any other lost
	// definition is the person's, and it does not.
	self := discover.Shadowed{Config: config.ServerConfig{Name: "switchboard", Command: "/usr/local/bin/switchboard", Args: []string{"serve"}}}
	l, err = app.FromDiscovery(&discover.Discovery{Shadowed: []discover.Shadowed{self}}, &app.LoadOptions{Demo: stand})
	if err != nil || !l.Demo {
		t.Errorf("only an app's entry for switchboard: %+v, %v; want the demo", l, err)
	}
	other := discover.Shadowed{Config: config.ServerConfig{Name: "github", Command: "npx", Args: []string{"github-mcp"}}}
	l, err = app.FromDiscovery(&discover.Discovery{Shadowed: []discover.Shadowed{self, other}}, &app.LoadOptions{Demo: stand})
	if err != nil || l.Demo {
		t.Errorf("a definition of the person's, lost: %+v, %v; want no demo", l, err)
	}
}

func TestIsSourceError(t *testing.T) {
	policyDiag := &config.Diagnostic{Path: "/etc/switchboard/policy.json", Line: 2, Column: 3, Message: "unknown field"}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&discover.TrustError{Err: errors.New("/s/trust.json: not JSON")}, false},
		{&discover.PolicyError{Path: policyDiag.Path, Err: policyDiag}, false},
		{fmt.Errorf("Boom: %w", errors.New("internal error listing locations")), false},
		{&config.Diagnostic{Path: "/home/me/.cursor/mcp.json", Line: 1, Column: 1, Message: "not JSON"}, true},
		// A file named like a policy is still a source.
		{&config.Diagnostic{Path: "/home/me/policy file.json", Line: 1, Column: 1, Message: "trust store"}, true},
	} {
		if got := app.IsSourceError(tc.err); got != tc.want {
			t.Errorf("IsSourceError(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
