package config

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A config depends on its working directory when it names a path
// relative to it.
func TestDependsOnWorkDir(t *testing.T) {
	for _, tc := range []struct {
		c    ServerConfig
		want bool
	}{
		{ServerConfig{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"}}, false},
		{ServerConfig{Command: "uvx", Args: []string{"mcp-server-time", "--local-timezone=Europe/Oslo"}}, false},
		{ServerConfig{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "."}}, true},
		{ServerConfig{Command: "node", Args: []string{"build/index.js"}}, true},
		{ServerConfig{Command: "./server"}, true},
		{ServerConfig{Command: "srv", Args: []string{"--data=../data"}}, true},
		{ServerConfig{Command: "srv", Env: map[string]string{"DB": "./db.sqlite"}}, true},
		{ServerConfig{Command: "srv", Args: []string{"/abs/path", "https://example.com/x", "~/notes"}}, false},
		{ServerConfig{Command: "srv", Cwd: "sub"}, true},
		{ServerConfig{Command: "srv", Cwd: "/abs", Args: []string{"."}}, false},
		{ServerConfig{URL: "https://example.com/mcp"}, false},
	} {
		if got := tc.c.DependsOnWorkDir(); got != tc.want {
			t.Errorf("%+v: DependsOnWorkDir %v, want %v", tc.c, got, tc.want)
		}
	}
}

func TestDiffConfigs(t *testing.T) {
	base := func(name string) ServerConfig {
		return ServerConfig{Name: name, Command: "srv", Args: []string{"--" + name}, Env: map[string]string{"K": "v"}}
	}
	with := func(name string, change func(*ServerConfig)) ServerConfig {
		c := base(name)
		change(&c)
		return c
	}
	tests := []struct {
		name     string
		old, new []ServerConfig
		want     Diff
	}{
		{"identical", []ServerConfig{base("a")}, []ServerConfig{base("a")}, Diff{Unchanged: []string{"a"}}},
		{"added and removed", []ServerConfig{base("a"), base("b")}, []ServerConfig{base("b"), base("c")},
			Diff{Added: []string{"c"}, Removed: []string{"a"}, Unchanged: []string{"b"}}},
		{"args restart", []ServerConfig{base("a")}, []ServerConfig{with("a", func(c *ServerConfig) { c.Args = []string{"x"} })},
			Diff{Changed: []string{"a"}}},
		{"secret restart", []ServerConfig{base("a")}, []ServerConfig{with("a", func(c *ServerConfig) { c.Env = map[string]string{"K": "w"} })},
			Diff{Changed: []string{"a"}}},
		{"url restart", []ServerConfig{base("a")}, []ServerConfig{with("a", func(c *ServerConfig) { c.URL = "http://x" })},
			Diff{Changed: []string{"a"}}},
		{"disable restart", []ServerConfig{base("a")}, []ServerConfig{with("a", func(c *ServerConfig) { c.Disabled = true })},
			Diff{Changed: []string{"a"}}},
		{"now invalid restart", []ServerConfig{base("a")}, []ServerConfig{with("a", func(c *ServerConfig) { c.Err = errors.New("bad") })},
			Diff{Changed: []string{"a"}}},
		{"trust restart", []ServerConfig{with("a", func(c *ServerConfig) { c.Untrusted = true })}, []ServerConfig{base("a")},
			Diff{Changed: []string{"a"}}},
		// The limit is the connection's: it is set when the transport is made.
		{"message size restart", []ServerConfig{base("a")}, []ServerConfig{with("a", func(c *ServerConfig) { c.MaxMessageSize = 1 << 20 })},
			Diff{Changed: []string{"a"}}},
		{"auto-approve in place", []ServerConfig{base("a")}, []ServerConfig{with("a", func(c *ServerConfig) { c.AutoApprove = []string{"echo"} })},
			Diff{Updated: []string{"a"}}},
		{"timeout in place", []ServerConfig{base("a")}, []ServerConfig{with("a", func(c *ServerConfig) { c.Timeout = time.Minute })},
			Diff{Updated: []string{"a"}}},
		{"tool filter in place", []ServerConfig{base("a")}, []ServerConfig{with("a", func(c *ServerConfig) { c.Tools.Deny = []string{"rm"} })},
			Diff{Updated: []string{"a"}}},
		// An edit above an entry moves it; that is not a change of its own.
		{"moved line", []ServerConfig{base("a")}, []ServerConfig{with("a", func(c *ServerConfig) { c.Source.Line = 9 })},
			Diff{Moved: []string{"a"}}},
		{"moved error", []ServerConfig{with("a", func(c *ServerConfig) { c.Err = &Diagnostic{Path: "f", Line: 2, Message: "X is not set"} })},
			[]ServerConfig{with("a", func(c *ServerConfig) { c.Err = &Diagnostic{Path: "f", Line: 5, Message: "X is not set"} })},
			Diff{Moved: []string{"a"}}},
		{"another error restart", []ServerConfig{with("a", func(c *ServerConfig) { c.Err = &Diagnostic{Path: "f", Line: 2, Message: "X is not set"} })},
			[]ServerConfig{with("a", func(c *ServerConfig) { c.Err = &Diagnostic{Path: "f", Line: 2, Message: "Y is not set"} })},
			Diff{Changed: []string{"a"}}},
		// Trust moves WorkDir: only a server that reads paths relative to
		// where it runs restarts; one that does not takes it at its next
		// start; one with an absolute cwd or a url never sees it.
		{"work dir in place", []ServerConfig{with("a", func(c *ServerConfig) { c.WorkDir = "/home" })},
			[]ServerConfig{with("a", func(c *ServerConfig) { c.WorkDir = "/proj" })}, Diff{Updated: []string{"a"}}},
		{"work dir, absolute cwd", []ServerConfig{with("a", func(c *ServerConfig) { c.WorkDir, c.Cwd = "/home", "/srv" })},
			[]ServerConfig{with("a", func(c *ServerConfig) { c.WorkDir, c.Cwd = "/proj", "/srv" })}, Diff{Unchanged: []string{"a"}}},
		{"work dir, relative cwd restart", []ServerConfig{with("a", func(c *ServerConfig) { c.WorkDir, c.Cwd = "/home", "sub" })},
			[]ServerConfig{with("a", func(c *ServerConfig) { c.WorkDir, c.Cwd = "/proj", "sub" })}, Diff{Changed: []string{"a"}}},
		{"work dir, relative arg restart", []ServerConfig{with("a", func(c *ServerConfig) { c.WorkDir, c.Args = "/home", []string{"--root=."} })},
			[]ServerConfig{with("a", func(c *ServerConfig) { c.WorkDir, c.Args = "/proj", []string{"--root=."} })}, Diff{Changed: []string{"a"}}},
		{"moved to another file in place", []ServerConfig{base("a")}, []ServerConfig{with("a", func(c *ServerConfig) { c.Source.Path = "other.json" })},
			Diff{Updated: []string{"a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DiffConfigs(tt.old, tt.new)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DiffConfigs (-want +got):\n%s", diff)
			}
			if got.Empty() != (len(tt.want.Added)+len(tt.want.Removed)+len(tt.want.Changed)+len(tt.want.Updated) == 0) {
				t.Errorf("Empty() = %v", got.Empty())
			}
		})
	}
}

// A change of oauth or protocolVersion reaches the connection: the server
// restarts; alwaysLoad does not.
func TestDiffAuthAndEra(t *testing.T) {
	base := ServerConfig{Name: "r", URL: "https://h/mcp"}
	withAuth := base
	withAuth.OAuth = &OAuth{ClientID: "c"}
	pinned := base
	pinned.ProtocolVersion = ProtocolLegacy
	loaded := base
	loaded.AlwaysLoad = true
	for _, tc := range []struct {
		name    string
		next    ServerConfig
		restart bool
	}{{"oauth", withAuth, true}, {"protocolVersion", pinned, true}, {"alwaysLoad", loaded, false}} {
		if got := !base.SameConnection(&tc.next); got != tc.restart {
			t.Errorf("%s: restart %v, want %v", tc.name, got, tc.restart)
		}
	}
}

// Trust moving WorkDir keeps the identity (the tool cache's key) of a
// server that does not depend on it.
func TestIdentityFollowsDependsOnWorkDir(t *testing.T) {
	plain := ServerConfig{Command: "npx", Args: []string{"-y", "@x/server"}, WorkDir: "/home"}
	dot := ServerConfig{Command: "npx", Args: []string{"-y", "@x/server", "."}, WorkDir: "/home"}
	for _, tc := range []struct {
		c    ServerConfig
		same bool
	}{{plain, true}, {dot, false}} {
		moved := tc.c
		moved.WorkDir = "/proj"
		if same := tc.c.Identity() == moved.Identity(); same != tc.same {
			t.Errorf("%v: same identity in two work dirs %v, want %v", tc.c.Args, same, tc.same)
		}
	}
}
