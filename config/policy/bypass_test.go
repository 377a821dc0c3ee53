//go:build unix

package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/execpath"
)

// fakeMachine is a folder with a fake docker script, links to it under
// other names, and an npx in a good place and in a bad one.
type fakeMachine struct {
	t                        *testing.T
	root                     string
	docker, dockr, hostBin   string
	goodNpx, evilNpx, server string
	sh, env, busybox         string
}

func newFakeMachine(t *testing.T) *fakeMachine {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := &fakeMachine{t: t, root: root}
	m.docker = m.script("bin/docker")
	m.dockr = m.link(m.docker, "other/dockr")
	m.link("../../bin/docker", "proj/tools/dockr") // a relative link, in a project
	m.link(m.docker, "host/helper")                // found through the host's PATH
	m.hostBin = filepath.Join(root, "host")
	m.link(m.dockr, "chain/d2") // a link to a link
	m.goodNpx = m.link("../lib/npx-cli.js", "good/npx")
	m.script("lib/npx-cli.js")
	m.evilNpx = m.script("evil/npx")
	m.link(m.goodNpx, "links/npx") // someone's link to the good one
	m.server = m.script("srv/server")
	m.busybox = m.script("bb/busybox")
	for _, p := range []*string{&m.sh, &m.env} {
		name := map[*string]string{&m.sh: "sh", &m.env: "env"}[p]
		found, err := execpath.Find(name, "", os.Getenv("PATH"))
		if err != nil {
			t.Skipf("no %s on this machine: %v", name, err)
		}
		*p = found
	}
	return m
}

func (m *fakeMachine) script(rel string) string {
	p := filepath.Join(m.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho ran >&2\n"), 0o755); err != nil {
		m.t.Fatal(err)
	}
	return p
}

func (m *fakeMachine) link(target, rel string) string {
	p := filepath.Join(m.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		m.t.Fatal(err)
	}
	return p
}

// runtime is a host whose PATH holds only the fake host folder, started
// in the fake project.
func (m *fakeMachine) runtime() Runtime {
	return Runtime{
		Dir: filepath.Join(m.root, "proj"),
		LookupEnv: func(k string) (string, bool) {
			if k == "PATH" {
				return m.hostBin, true
			}
			return "", false
		},
	}
}

func (m *fakeMachine) policy(text string) *Policy {
	m.t.Helper()
	p, err := Parse("policy.json", []byte(text))
	if err != nil {
		m.t.Fatal(err)
	}
	return p
}

type bypass struct {
	name    string
	command string
	args    []string
	env     map[string]string
	cwd     string
	want    string // a prefix of Check's answer; "" is allowed
}

func (m *fakeMachine) check(t *testing.T, p *Policy, tests []bypass) {
	t.Helper()
	for _, tt := range tests {
		c := &config.ServerConfig{Name: "s", Command: tt.command, Args: tt.args, Env: tt.env, Cwd: tt.cwd}
		got := p.Check(c, m.runtime())
		if tt.want == "" && got != "" || tt.want != "" && !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: %s %q: Check = %q, want %q", tt.name, tt.command, tt.args, got, tt.want)
		}
	}
}

// TestDenyBypasses: {"deny": [{"command": "docker"}]} blocks docker however
// the config reaches it. Before command rules judged what runs, every case
// but the first ran the fake docker.
func TestDenyBypasses(t *testing.T) {
	m := newFakeMachine(t)
	deny := `deny rule 1 (command "docker")`
	wrapped := "the policy's command rules cannot judge what the command runs: "
	fakePATH := map[string]string{"PATH": filepath.Dir(m.docker)}
	p := m.policy(`{"deny": [{"command": "docker"}]}`)
	m.check(t, p, []bypass{
		{name: "by its path", command: m.docker, want: deny},
		{name: "a symlink named dockr", command: m.dockr, want: deny + ": the command runs " + m.docker},
		{name: "a link to the link", command: filepath.Join(m.root, "chain/d2"), want: deny},
		{name: "dockr through the server's own PATH", command: "dockr", env: map[string]string{"PATH": filepath.Dir(m.dockr)}, want: deny},
		{name: "a name in the host's PATH", command: "helper", want: deny + ": the command runs " + m.docker},
		{name: "relative, from the project", command: "./tools/dockr", want: deny},
		{name: "relative, from a cwd", command: "./dockr", cwd: "tools", want: deny},
		{name: "sh -c", command: m.sh, args: []string{"-c", "docker"}, env: fakePATH, want: wrapped + "sh, a shell"},
		{name: "bash by name", command: "bash", args: []string{"-c", "docker"}, want: wrapped + "bash, a shell"},
		{name: "/usr/bin/env docker", command: m.env, args: []string{"docker"}, env: fakePATH, want: deny + ": the command runs " + m.docker},
		{name: "env with options and settings", command: m.env, args: []string{"-u", "HOME", "-v", "--", "A=b", "dockr"}, env: map[string]string{"PATH": filepath.Dir(m.dockr)}, want: deny},
		{name: "env's own PATH=", command: m.env, args: []string{"PATH=" + filepath.Dir(m.dockr), "dockr"}, want: deny},
		{name: "env env docker", command: m.env, args: []string{m.env, "docker"}, env: fakePATH, want: deny},
		{name: "busybox's env", command: m.link(m.busybox, "bb/env"), args: []string{"docker"}, env: fakePATH, want: deny},
		{name: "busybox's sh", command: m.link(m.busybox, "bb/sh"), args: []string{"-c", "docker"}, want: wrapped + "sh, a shell"},
		{name: "busybox itself", command: m.busybox, args: []string{"sh", "-c", "docker"}, want: wrapped + "busybox, a shell"},
		{name: "env -S", command: m.env, args: []string{"-S", "docker ps"}, want: wrapped + "env -S"},
		{name: "env -i", command: m.env, args: []string{"-i", "docker"}, want: deny},
		{name: "env -i, a name the deny list does not know", command: m.env, args: []string{"-i", "dockr"}, want: wrapped + "env -i"},
		{name: "env unsetting PATH", command: m.env, args: []string{"-u", "PATH", "dockr"}, want: wrapped + "env -u PATH"},
		{name: "a launcher", command: "nice", args: []string{"dockr"}, want: wrapped + "nice, a launcher"},
		{name: "inline code", command: "node", args: []string{"-e", "require('child_process').exec('docker')"}, want: wrapped + "node -e"},
		{name: "inline code in a cluster", command: "python3.12", args: []string{"-Ic", "import os"}, want: wrapped + "python -Ic"},
		{name: "npx -c", command: "npx", args: []string{"-c", "docker ps"}, want: wrapped + "npx -c"},
		{name: "a PATH from a !command", command: "dockr", env: map[string]string{"PATH": "!echo /x"}, want: wrapped + `its PATH is the output of a "!command"`},
		// What is not docker runs.
		{name: "another program", command: m.server},
		{name: "node with a script", command: "node", args: []string{"server.js", "-e"}},
		{name: "env running another program", command: m.env, args: []string{"A=b", m.server}},
		{name: "not found anywhere", command: "no-such-server"},
	})

	// allowWrappers admits what the rules cannot see into, nothing more.
	p = m.policy(`{"deny": [{"command": "docker"}], "allowWrappers": true}`)
	m.check(t, p, []bypass{
		{name: "sh -c, allowed", command: m.sh, args: []string{"-c", "docker"}},
		{name: "env docker, still denied", command: m.env, args: []string{"docker"}, env: fakePATH, want: deny},
	})
	p = m.policy(`{"deny": [{"command": "sh"}, {"command": "docker"}], "allowWrappers": true}`)
	m.check(t, p, []bypass{{name: "sh denied by name", command: m.sh, args: []string{"-c", "true"}, want: `deny rule 1 (command "sh")`}})

	// With no command rule, nothing is looked up and wrappers are nobody's
	// business.
	p = m.policy(`{"deny": [{"name": "scratch"}]}`)
	m.check(t, p, []bypass{{name: "sh with a name policy", command: m.sh, args: []string{"-c", "docker"}}})
}

// TestAllowMatchesWhereTheProgramIs: an allow rule names a path, and only
// the program there (or a link to it) is admitted, never another of the
// same name. Before, {"command": "npx"} admitted any npx anywhere.
func TestAllowMatchesWhereTheProgramIs(t *testing.T) {
	m := newFakeMachine(t)
	p := m.policy(`{"allow": [{"command": "` + m.goodNpx + `"}, {"command": "` + m.goodNpx + ` -y @good/*"}]}`)
	notAllowed := "not in the policy's allow list: "
	m.check(t, p, []bypass{
		{name: "the allowed file", command: m.goodNpx},
		{name: "through the server's PATH", command: "npx", env: map[string]string{"PATH": filepath.Dir(m.goodNpx)}},
		{name: "a link to the allowed file", command: filepath.Join(m.root, "links/npx")},
		{name: "another npx", command: m.evilNpx, want: notAllowed + "the command runs " + m.evilNpx},
		{name: "npx through a PATH that finds the other", command: "npx", env: map[string]string{"PATH": filepath.Dir(m.evilNpx)}, want: notAllowed + "the command runs " + m.evilNpx},
		{name: "npx found nowhere", command: "npx", want: notAllowed + `"npx" is not found`},
		{name: "env is judged too", command: m.env, args: []string{m.goodNpx}, want: notAllowed + m.env + " is not admitted"},
		{name: "a shell around it", command: m.sh, args: []string{"-c", m.goodNpx}, want: "the policy's command rules cannot judge"},
	})
	p = m.policy(`{"allow": [{"command": "` + m.goodNpx + `"}, {"command": "` + m.env + `"}]}`)
	m.check(t, p, []bypass{
		{name: "env and what it runs, both allowed", command: m.env, args: []string{"A=b", m.goodNpx}},
		{name: "env running another", command: m.env, args: []string{m.evilNpx}, want: notAllowed + m.evilNpx + ", which " + m.env + " runs, is not admitted"},
	})
	// A pattern with args admits that command line only.
	p = m.policy(`{"allow": [{"command": "` + m.goodNpx + ` -y @good/*"}]}`)
	m.check(t, p, []bypass{
		{name: "the allowed package", command: m.goodNpx, args: []string{"-y", "@good/server"}},
		{name: "another package", command: m.goodNpx, args: []string{"-y", "@evil/server"}, want: notAllowed},
	})
	// Name and url rules admit as before.
	p = m.policy(`{"allow": [{"name": "s"}]}`)
	m.check(t, p, []bypass{{name: "by name", command: m.evilNpx}})
}

// TestFailClosed: a policy file that does not say clearly what it allows
// blocks every server and says why. Before, each of these allowed
// everything.
func TestFailClosed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dangling := filepath.Join(dir, "dangling.json")
	if err := os.Symlink(filepath.Join(dir, "moved-away.json"), dangling); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{write("empty.json", ""), "1:1: the file is empty"},
		{write("blank.json", "\n\n"), "1:1: the file is empty"},
		{dangling, "a symbolic link to " + filepath.Join(dir, "moved-away.json") + ", which leads to no file"},
		{write("dup.json", `{"deny": [{"command": "docker"}], "deny": []}`), `1:35: field "deny": given twice`},
		{write("empty-allow.json", `{"allow": []}`), `1:11: field "allow": an empty allow list is ambiguous`},
		{write("bare-allow.json", `{"allow": [{"command": "npx"}]}`), `1:24: field "allow[0].command": "npx" is not an absolute path`},
	}
	for _, tt := range tests {
		p := Load(tt.path)
		if p == nil || p.Err == nil {
			t.Errorf("%s: Load = %+v, want an error", tt.path, p)
			continue
		}
		for _, c := range []config.ServerConfig{{Name: "a", Command: "/bin/true"}, {Name: "b", URL: "https://b.example/mcp"}} {
			if got, want := p.Check(&c, Runtime{}), "policy file "+tt.path+": "+tt.want; !strings.HasPrefix(got, want) {
				t.Errorf("%s: Check(%s) = %q, want %q", tt.path, c.Name, got, want)
			}
		}
	}
}

// TestInjectionAndRelativePath: code injected through the environment,
// or a program env finds through a relative PATH entry, is not judged by
// name: both are refused like a shell (found by an attacker's pass).
func TestInjectionAndRelativePath(t *testing.T) {
	p, err := Parse("p.json", []byte(`{"allow": [{"command": "/usr/bin/*"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rt := Runtime{Dir: t.TempDir(), LookupEnv: func(k string) (string, bool) {
		if k == "PATH" {
			return "/usr/bin:/bin", true
		}
		return "", false
	}}
	for _, c := range []config.ServerConfig{
		{Name: "preload", Command: "/usr/bin/true", Env: map[string]string{"LD_PRELOAD": "/tmp/evil.so"}},
		{Name: "node", Command: "/usr/bin/node", Env: map[string]string{"NODE_OPTIONS": "--require=/tmp/evil.js"}},
		{Name: "envpath", Command: "/usr/bin/env", Args: []string{"true"}, Env: map[string]string{"PATH": ":/usr/bin"}},
		{Name: "envarg", Command: "/usr/bin/env", Args: []string{"PATH=bin", "true"}},
	} {
		if why := p.Check(&c, rt); !strings.Contains(why, "cannot judge") {
			t.Errorf("%s: Check = %q, want it refused", c.Name, why)
		}
	}
}

// TestInlineCodeForms: the forms of inline code a review found slipping
// past (an option with a value before -c, code attached to the flag,
// node's -r and --import) are refused like -c itself.
func TestInlineCodeForms(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		flags string
		want  bool
	}{
		{[]string{"-c", "print(1)"}, "c", true},
		{[]string{"-W", "ignore", "-c", "CODE"}, "c", true},
		{[]string{"-cCODE"}, "c", true},
		{[]string{"-eCODE"}, "e E", true},
		{[]string{"-r", "fs", "-e", "CODE"}, "e p", true},
		{[]string{"--import", "data:text/javascript,CODE", "ok.js"}, "e p", true},
		{[]string{"--require=./x.js", "ok.js"}, "e p", true},
		{[]string{"server.py", "-c", "config.toml"}, "c", false}, // the script's own -c
		{[]string{"-u", "server.py"}, "c", false},
		{[]string{"--max-old-space-size=512", "server.js"}, "e p", false},
	} {
		if got := inlineFlag(tc.args, tc.flags) != ""; got != tc.want {
			t.Errorf("inlineFlag(%q, %q) = %v, want %v", tc.args, tc.flags, got, tc.want)
		}
	}
}
