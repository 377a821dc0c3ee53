package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/discover"
	"github.com/switchboard-mcp/switchboard/config/edit"
	"github.com/switchboard-mcp/switchboard/config/policy"
	"github.com/switchboard-mcp/switchboard/config/trust"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// These tests call the commands' run functions directly, on a Factory of
// fakes: no cobra, no flags, no config files, and servers in this process.

// fakeFactory is a Factory whose discovery finds d. Its hosts use no tool
// cache, so a start waits for every server: no answer depends on how fast
// a server connects. Out and Err collect what the command prints.
type fakeFactory struct {
	*Factory
	out, err bytes.Buffer
	// modes records each discovery's mode.
	modes []discoverMode
	// Demo stands in when d finds nothing (app.LoadOptions.Demo); nil:
	// nothing does.
	Demo func() ([]config.ServerConfig, error)
}

func newFakeFactory(d *discover.Discovery) *fakeFactory {
	ff := &fakeFactory{}
	ff.Factory = &Factory{
		IO: IO{
			In: strings.NewReader(""), Out: &ff.out, Err: &ff.err,
			Getenv:    func(string) string { return "" },
			LookupEnv: func(string) (string, bool) { return "", false },
		},
		Discover: func(mode discoverMode) (*discover.Discovery, error) {
			ff.modes = append(ff.modes, mode)
			return d, nil
		},
		Load: func(mode discoverMode) (*app.Loaded, error) {
			ff.modes = append(ff.modes, mode)
			return app.FromDiscovery(d, &app.LoadOptions{Demo: ff.Demo})
		},
		HostOptions: func(bool) (*host.Options, error) { return nil, nil },
	}
	return ff
}

// demoServer serves the demo MCP server over streamable HTTP from this
// process, until the test ends.
func demoServer(t *testing.T, name string) config.ServerConfig {
	t.Helper()
	srv := demo.NewServer(demo.Options{Name: name})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return config.ServerConfig{
		Name: name, URL: ts.URL,
		Source: config.Source{Provider: "test", Path: "run_test.go", Level: config.LevelExplicit},
	}
}

func TestRunListFallsBackToTheDemo(t *testing.T) {
	ff := newFakeFactory(&discover.Discovery{}) // nothing anywhere
	ff.Demo = func() ([]config.ServerConfig, error) { return []config.ServerConfig{demoServer(t, "demo")}, nil }

	if err := runList(context.Background(), &listOptions{Factory: ff.Factory, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var got []statusJSON
	if err := json.Unmarshal(ff.out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, ff.out.String())
	}
	if len(got) != 1 || got[0].Name != "demo" || got[0].State != "connected" || got[0].Transport != "http" || got[0].Tools == 0 {
		t.Errorf("list --json = %+v, want the demo server connected over http with its tools", got)
	}
	if diff := cmp.Diff([]discoverMode{forHost}, ff.modes); diff != "" {
		t.Errorf("discovery modes (-want +got):\n%s", diff)
	}
}

// TestDemoObeysPolicy: the demo that stands in for an empty config is
// judged by the policy like any server. Before, a deny-all or
// "allowStdio": false policy still started it.
func TestDemoObeysPolicy(t *testing.T) {
	for _, text := range []string{`{"deny": [{"name": "*"}]}`, `{"allowRemote": false}`} {
		p, err := policy.Parse("policy.json", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		ff := newFakeFactory(&discover.Discovery{Policy: p})
		ff.Demo = func() ([]config.ServerConfig, error) { return []config.ServerConfig{demoServer(t, "demo")}, nil }
		if err := runList(context.Background(), &listOptions{Factory: ff.Factory, JSON: true}); err != nil {
			t.Fatal(err)
		}
		var got []statusJSON
		if err := json.Unmarshal(ff.out.Bytes(), &got); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, ff.out.String())
		}
		if len(got) != 1 || got[0].State != "blocked" || !strings.Contains(got[0].Error, "polic") {
			t.Errorf("%s: list --json = %+v, want the demo blocked by policy", text, got)
		}
	}
}

func TestRunListIncompleteIsExitOne(t *testing.T) {
	ff := newFakeFactory(&discover.Discovery{
		Servers: []config.ServerConfig{demoServer(t, "alpha")},
		Errors:  []error{errors.New("broken.json:3:1: unexpected end of input")},
	})
	ff.Demo = func() ([]config.ServerConfig, error) {
		t.Error("the demo stood in for a discovery that found servers")
		return nil, nil
	}

	err := runList(context.Background(), &listOptions{Factory: ff.Factory})
	if exit, ok := errors.AsType[exitError](err); !ok || exit.code != ExitFailure {
		t.Errorf("runList = %v, want exit 1 for a listing with a source missing", err)
	}
	if !strings.Contains(ff.out.String(), "alpha") || !strings.Contains(ff.out.String(), "connected") {
		t.Errorf("table does not show alpha connected:\n%s", ff.out.String())
	}
	if want := "switchboard: broken.json:3:1: unexpected end of input\n"; ff.err.String() != want {
		t.Errorf("stderr = %q, want %q", ff.err.String(), want)
	}
}

// TestRunListFailedIsExitOne: list is a health check like bare
// switchboard. A failed server is exit 1 whatever the output; a disabled,
// blocked or untrusted one is a decision, not a failure.
func TestRunListFailedIsExitOne(t *testing.T) {
	src := config.Source{Provider: "test", Path: "run_test.go", Level: config.LevelExplicit}
	decided := []config.ServerConfig{
		demoServer(t, "alpha"),
		{Name: "off", Command: "x", Disabled: true, Source: src},
		{Name: "denied", Command: "x", Blocked: "deny rule 1", Source: src},
		{Name: "cloned", Command: "x", Untrusted: true, Source: src},
	}
	broken := append(slices.Clone(decided), config.ServerConfig{Name: "broken", Command: "x", Err: errors.New("variable X is not set"), Source: src})
	for _, tc := range []struct {
		name    string
		servers []config.ServerConfig
		json    jsonFlag
		wait    bool
		want    int
	}{
		{"decided", decided, false, false, ExitOK},
		{"decided --json --wait", decided, true, true, ExitOK},
		{"failed", broken, false, false, ExitFailure},
		{"failed --json", broken, true, false, ExitFailure},
		{"failed --wait", broken, false, true, ExitFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ff := newFakeFactory(&discover.Discovery{Servers: tc.servers})
			err := runList(context.Background(), &listOptions{Factory: ff.Factory, JSON: tc.json, Wait: tc.wait})
			code := ExitOK
			if exit, ok := errors.AsType[exitError](err); ok {
				code = exit.code
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.want {
				t.Errorf("exit %d, want %d; printed:\n%s", code, tc.want, ff.out.String())
			}
		})
	}
}

func TestRunCallResolvesNames(t *testing.T) {
	d := &discover.Discovery{Servers: []config.ServerConfig{demoServer(t, "alpha"), demoServer(t, "beta")}}
	for _, tc := range []struct {
		tool, out, err string
	}{
		{tool: "mcp__alpha__echo", out: "hi\n"},
		{tool: "beta/echo", out: "hi\n"},
		{tool: "alpha__echo", out: "hi\n"},
		{tool: "echo", err: `tool name "echo" is ambiguous: mcp__alpha__echo, mcp__beta__echo`},
		{tool: "nosuch", err: `no tool named "nosuch" (see 'switchboard tools')`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			ff := newFakeFactory(d)
			err := runCall(context.Background(), &callOptions{Factory: ff.Factory, Tool: tc.tool, Pairs: []string{"text=hi"}})
			if tc.err != "" {
				if _, usage := errors.AsType[usageError](err); !usage || err.Error() != tc.err {
					t.Errorf("runCall = %v, want the usage error %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ff.out.String() != tc.out {
				t.Errorf("printed %q, want %q", ff.out.String(), tc.out)
			}
		})
	}
}

func TestRunSources(t *testing.T) {
	ff := newFakeFactory(&discover.Discovery{
		Sources: []discover.SourceReport{
			{Provider: "Claude Code", ID: "claude-code", Level: config.LevelUser, Path: "/home/me/.claude.json", Found: true,
				Servers: []string{"alpha", "off"}, Lost: []discover.LostServer{{Name: "beta", Reason: "shadowed by the definition in Cursor"}}},
			{Provider: "Cursor", ID: "cursor", Level: config.LevelUser, Path: "/home/me/.cursor/mcp.json", Found: true, Error: "1:1: not JSON"},
			{Provider: "Kiro", ID: "kiro", Level: config.LevelUser, Path: "/home/me/.kiro/settings/mcp.json"},
		},
		Servers: []config.ServerConfig{
			{Name: "alpha", Command: "a", Source: config.Source{Provider: "Claude Code", Path: "/home/me/.claude.json", Level: config.LevelUser, Line: 3}},
			{Name: "off", Command: "b", Disabled: true, Source: config.Source{Provider: "Claude Code", Path: "/home/me/.claude.json", Level: config.LevelUser, Line: 4}},
		},
		Errors: []error{
			&config.Diagnostic{Path: "/home/me/.cursor/mcp.json", Line: 1, Column: 1, Message: "not JSON"},
			&discover.PolicyError{Path: "/etc/switchboard/policy.json", Err: &config.Diagnostic{Path: "/etc/switchboard/policy.json", Line: 2, Column: 3, Message: "unknown field"}},
		},
	})
	ff.IO.LookupEnv = func(k string) (string, bool) { return map[string]string{"HOME": "/home/me"}[k], k == "HOME" }

	if err := runSources(context.Background(), &sourcesOptions{Factory: ff.Factory}); err != nil {
		t.Fatal(err)
	}
	want := `PROVIDER     LEVEL  FILE                       SERVERS
Claude Code  user   ~/.claude.json             alpha, off (disabled)
    beta: shadowed by the definition in Cursor
Cursor       user   ~/.cursor/mcp.json         error
    error: 1:1: not JSON
Kiro         user   ~/.kiro/settings/mcp.json  not found
error: policy file /etc/switchboard/policy.json: 2:3: unknown field (every server is blocked)
`
	if diff := cmp.Diff(want, ff.out.String()); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	// sources lists; it never runs a "!command".
	if diff := cmp.Diff([]discoverMode{namesOnly}, ff.modes); diff != "" {
		t.Errorf("discovery modes (-want +got):\n%s", diff)
	}
}

// recordingEditor is an Editor over an in-memory config: names holds the
// entries of our own file, claims the entries that only claim a name.
type recordingEditor struct {
	names, claims map[string]bool
	calls         []string
}

func (e *recordingEditor) AddServer(path, name string, _ edit.EntryFields) error {
	e.calls = append(e.calls, "add "+name)
	return nil
}

func (e *recordingEditor) AddServerJSON(path, name string, _ json.RawMessage) error {
	e.calls = append(e.calls, "add "+name)
	return nil
}

func (e *recordingEditor) RemoveServer(path, name string) error {
	e.calls = append(e.calls, "remove "+name)
	return nil
}

func (e *recordingEditor) SetDisabled(path, name string, disabled bool) error {
	if !e.names[name] {
		return edit.ErrNoServer
	}
	e.calls = append(e.calls, "set-disabled "+name)
	return nil
}

func (e *recordingEditor) ClaimDisabled(path, name string) error {
	e.calls = append(e.calls, "claim "+name)
	return nil
}

func (e *recordingEditor) IsClaim(path, name string) (bool, error) { return e.claims[name], nil }

func TestRunEditsOwnConfig(t *testing.T) {
	cursor := config.Source{Provider: "Cursor", Path: "/home/me/.cursor/mcp.json", Level: config.LevelUser, Line: 1}
	d := &discover.Discovery{Servers: []config.ServerConfig{{Name: "cur", Command: "c", Source: cursor}}}
	for _, tc := range []struct {
		name  string
		run   func(context.Context, *editOptions) error
		arg   string
		calls []string
		out   string
		err   string
	}{
		{name: "disable ours", run: runDisable, arg: "mine", calls: []string{"set-disabled mine"}, out: `Disabled "mine" in /cfg/mcp.json` + "\n"},
		{name: "disable another tool's", run: runDisable, arg: "cur", calls: []string{"claim cur"}, out: `Disabled "cur" in /cfg/mcp.json` + "\n"},
		{name: "disable nowhere", run: runDisable, arg: "nowhere", err: "no server with that name"},
		{name: "enable a claim", run: runEnable, arg: "claimed", calls: []string{"remove claimed"}, out: `Enabled "claimed" in /cfg/mcp.json` + "\n"},
		{name: "enable ours", run: runEnable, arg: "mine", calls: []string{"set-disabled mine"}, out: `Enabled "mine" in /cfg/mcp.json` + "\n"},
		{name: "remove", run: runRemove, arg: "mine", calls: []string{"remove mine"}, out: `Removed "mine" in /cfg/mcp.json` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ed := &recordingEditor{names: map[string]bool{"mine": true}, claims: map[string]bool{"claimed": true}}
			ff := newFakeFactory(d)
			ff.Edit = ed
			ff.ConfigPath = func(scope string) (string, error) {
				if scope != "user" {
					t.Errorf("scope %q, want user", scope)
				}
				return "/cfg/mcp.json", nil
			}
			err := tc.run(context.Background(), &editOptions{Factory: ff.Factory, Scope: "user", Name: tc.arg})
			switch {
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("err = %v, want one containing %q", err, tc.err)
			}
			if diff := cmp.Diff(tc.calls, ed.calls); diff != "" {
				t.Errorf("edits (-want +got):\n%s", diff)
			}
			if ff.out.String() != tc.out {
				t.Errorf("printed %q, want %q", ff.out.String(), tc.out)
			}
		})
	}
}

func TestParsePairs(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want map[string]string
		err  string
	}{
		{in: nil, want: nil},
		{in: []string{"a=1", "b=x=y", "c="}, want: map[string]string{"a": "1", "b": "x=y", "c": ""}},
		// A key given twice is refused: before, the later pair won silently.
		{in: []string{"a=1", "a=2"}, err: `--env "a" is given twice; give each key once`},
		{in: []string{"a=1", "novalue"}, err: `--env "novalue": want KEY=VALUE`},
		{in: []string{"=v"}, err: `--env "=v": want KEY=VALUE`},
	} {
		got, err := parsePairs(tc.in, "--env")
		if tc.err != "" {
			if _, usage := errors.AsType[usageError](err); !usage || err.Error() != tc.err {
				t.Errorf("parsePairs(%q) error = %v, want the usage error %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parsePairs(%q): %v", tc.in, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("parsePairs(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestCallArgs(t *testing.T) {
	got, err := callArgs(`{"a": 1, "b": "json"}`, []string{"n=2", "c=text", "d={\"x\":true}"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": 1.0, "b": "json", "n": 2.0, "c": "text", "d": map[string]any{"x": true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("callArgs (-want +got):\n%s", diff)
	}
	if _, err := callArgs(`[1`, nil); err == nil || !strings.Contains(err.Error(), "--args: not a JSON object") {
		t.Errorf("bad --args: %v", err)
	}
	if _, err := callArgs("", []string{"notapair"}); err == nil || err.Error() != `argument "notapair": want KEY=VALUE` {
		t.Errorf("bad pair: %v", err)
	}
	// A key in --args and as a pair: neither is plainly the one meant.
	// Before, the pair won silently.
	if _, err := callArgs(`{"a": 1}`, []string{"a=2"}); err == nil || err.Error() != `argument "a" is given twice, in --args and as a=VALUE; give it once` {
		t.Errorf("a key given both ways: %v", err)
	}
	if _, err := callArgs("", []string{"a=1", "a=2"}); err == nil || err.Error() != `argument "a" is given twice; give each key once` {
		t.Errorf("a key given twice as a pair: %v", err)
	}
}

func TestRunTrust(t *testing.T) {
	files := []trust.ProjectFile{
		{Path: "/p/.mcp.json", Provider: "Claude Code", Servers: []string{"a", "b"}},
		{Path: "/p/.cursor/mcp.json", Provider: "Cursor"},
	}
	for _, tc := range []struct {
		name  string
		files []trust.ProjectFile
		out   string
	}{
		{name: "nothing", out: "Trusted /p: it has no MCP config files; your servers may now start in it.\n"},
		{name: "files", files: files, out: "Trusted /p: the servers in these files may start.\n" +
			"  Claude Code  /p/.mcp.json  a, b\n" +
			"  Cursor       /p/.cursor/mcp.json  no servers\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ff := newFakeFactory(nil)
			ff.ScanProject = func() (string, []trust.ProjectFile, error) { return "/p", tc.files, nil }
			var trusted []trust.ProjectFile
			ff.TrustProject = func(dir string, files []trust.ProjectFile) error {
				if dir != "/p" {
					t.Errorf("trusted %s, want /p", dir)
				}
				trusted = files
				return nil
			}
			if err := runTrust(context.Background(), &trustOptions{Factory: ff.Factory}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.files, trusted); diff != "" {
				t.Errorf("trusted files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.out, ff.out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}
