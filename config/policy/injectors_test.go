package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
)

// TestEveryInjectorIsRefused: under an allow rule, a server whose env sets
// any variable that makes its program run other code is refused, one case
// per variable of each runtime's documentation, and the prefix families in
// any case npm reads them.
func TestEveryInjectorIsRefused(t *testing.T) {
	p, err := Parse("p.json", []byte(`{"allow": [{"command": "/usr/bin/*"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rt := usrBinRuntime(t)
	names := []string{"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "BASH_FUNC_ls%%",
		"GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "npm_config_registry", "NPM_CONFIG_SCRIPT_SHELL", "npm_config_node_options",
		"LUA_INIT", "LUA_INIT_5_4", "LUA_PATH_5_4", "LUA_CPATH"}
	for name := range injectors {
		names = append(names, name)
	}
	for _, name := range names {
		c := config.ServerConfig{Name: "s", Command: "/usr/bin/true", Env: map[string]string{name: "/tmp/x"}}
		if why := p.Check(&c, rt); !strings.Contains(why, "sets "+name) {
			t.Errorf("%s: Check = %q, want it refused", name, why)
		}
	}
	// Ordinary variables are not.
	for _, name := range []string{"GITHUB_TOKEN", "LOG_LEVEL", "GIT_AUTHOR_NAME", "NODE_ENV", "PYTHONUNBUFFERED"} {
		c := config.ServerConfig{Name: "s", Command: "/usr/bin/true", Env: map[string]string{name: "x"}}
		if why := p.Check(&c, rt); why != "" {
			t.Errorf("%s: Check = %q, want it allowed", name, why)
		}
	}
}

// TestPythonUserBaseRunsCode shows why PYTHONUSERBASE is on the list: a
// .pth file in the folder it names runs at every start of python.
func TestPythonUserBaseRunsCode(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 here")
	}
	base := t.TempDir()
	cmd := exec.Command(py, "-c", "import site; print(site.getusersitepackages())")
	cmd.Env = append(os.Environ(), "PYTHONUSERBASE="+base)
	site, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := strings.TrimSpace(string(site))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(base, "ran")
	if err := os.WriteFile(filepath.Join(dir, "x.pth"), []byte("import os; open("+quote(marker)+", 'w').close()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(py, "-c", "pass")
	run.Env = append(os.Environ(), "PYTHONUSERBASE="+base)
	if err := run.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the .pth file did not run (%v): PYTHONUSERBASE may no longer inject code", err)
	}
	if !isInjector("PYTHONUSERBASE") {
		t.Error("PYTHONUSERBASE is not an injector")
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// TestEnvNames: a policy's "env" globs restrict what a config may set
// outright, whatever the command, and a malformed "env" fails closed.
func TestEnvNames(t *testing.T) {
	p, err := Parse("p.json", []byte(`{"env": {"allow": ["GITHUB_*", "LOG_LEVEL", "AWS_*"], "deny": ["AWS_SECRET*"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{"GITHUB_TOKEN": "x", "LOG_LEVEL": "debug"}, ""},
		{map[string]string{"GITHUB_TOKEN": "x", "PYTHONPATH": "/x"}, "allow list does not name PYTHONPATH"},
		{map[string]string{"AWS_SECRET_ACCESS_KEY": "x"}, `denies setting AWS_SECRET_ACCESS_KEY (env deny "AWS_SECRET*")`},
	} {
		for _, c := range []config.ServerConfig{
			{Name: "local", Command: "srv", Env: tc.env},
			{Name: "wrapped", Command: "sh", Args: []string{"-c", "srv"}, Env: tc.env},
		} {
			got := p.Check(&c, Runtime{})
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("%s %v: Check = %q, want %q", c.Name, tc.env, got, tc.want)
			}
		}
	}
	for _, bad := range []string{
		`{"env": []}`, `{"env": {"allow": []}}`, `{"env": {"deny": [""]}}`, `{"env": {"deny": [1]}}`,
		`{"env": {"allo": ["X"]}}`, `{"env": {"deny": ["A"], "deny": ["B"]}}`, `{"env": {"deny": "AWS_*"}}`,
	} {
		if _, err := Parse("p.json", []byte(bad)); err == nil {
			t.Errorf("Parse(%s) = nil error, want one", bad)
		}
	}
}

// TestAllowListJudgesTheServersPATH: under an allow list, a config's own
// PATH may only name folders the allow rules admit programs from: npx,
// admitted by its path, runs node from the first PATH folder that has
// one. And a variable in another case is the same variable (Windows).
func TestAllowListJudgesTheServersPATH(t *testing.T) {
	p, err := Parse("p.json", []byte(`{"allow": [{"command": "/usr/bin/*"}, {"command": "/opt/mcp/bin/server"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rt := usrBinRuntime(t)
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"PATH": "/usr/bin"}, ""},
		{map[string]string{"PATH": "/opt/mcp/bin:/usr/bin"}, ""},
		{map[string]string{"PATH": "/tmp/evil:/usr/bin"}, "its env PATH names /tmp/evil"},
		{map[string]string{"node_options": "--require=/tmp/x.js"}, "sets node_options"},
		{map[string]string{"Git_Ssh_Command": "sh /tmp/x"}, "sets Git_Ssh_Command"},
		{map[string]string{"HOME": "/tmp/evilhome"}, "sets HOME"},
	} {
		c := config.ServerConfig{Name: "s", Command: "/usr/bin/true", Env: tc.env}
		got := p.Check(&c, rt)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%v: Check = %q, want %q", tc.env, got, tc.want)
		}
	}
}

// usrBinRuntime is a host whose PATH is /usr/bin:/bin.
func usrBinRuntime(t *testing.T) Runtime {
	return Runtime{Dir: t.TempDir(), LookupEnv: func(k string) (string, bool) {
		if k == "PATH" {
			return "/usr/bin:/bin", true
		}
		return "", false
	}}
}
