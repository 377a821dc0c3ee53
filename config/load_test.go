package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	project := write("project.json", `{"mcpServers": {
  "github": {"command": "gh-mcp", "disabled": true},
  "fs": {"command": "fs-mcp"}
}}`)
	broken := write("broken.json", `{"mcpServers": {"x": {"command": "x"}`)
	user := write("user.json", `{"mcpServers": {
  "fs": {"command": "other-fs"},
  "github": {"url": "https://api.github.com/mcp"},
  "linear": {"url": "https://mcp.linear.app/mcp"}
}}`)
	missing := filepath.Join(dir, "missing.json")

	res := Load([]FileRef{
		{Path: project, Level: LevelProject},
		{Path: missing, Level: LevelUser}, // a default location: silence
		{Path: broken, Level: LevelUser},
		{Path: user, Level: LevelUser},
	}, testEnv)

	src := func(path string, level Level, line int) Source {
		return Source{Provider: ProviderNative, Path: path, Level: level, Line: line}
	}
	want := &LoadResult{
		Servers: []ServerConfig{
			{Name: "github", Command: "gh-mcp", Disabled: true, Source: src(project, LevelProject, 2)},
			{Name: "fs", Command: "fs-mcp", Source: src(project, LevelProject, 3)},
			{Name: "linear", URL: "https://mcp.linear.app/mcp", Source: src(user, LevelUser, 4)},
		},
		Shadowed: []Shadowed{
			{Config: ServerConfig{Name: "fs", Command: "other-fs", Source: src(user, LevelUser, 2)}, By: src(project, LevelProject, 3)},
			{Config: ServerConfig{Name: "github", URL: "https://api.github.com/mcp", Source: src(user, LevelUser, 3)}, By: src(project, LevelProject, 2)},
		},
	}
	if diff := cmp.Diff(want, res, ignoreErr, cmpopts.IgnoreFields(LoadResult{}, "FileErrors")); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
	for _, c := range res.Servers {
		if c.Err != nil {
			t.Errorf("server %q: %v", c.Name, c.Err)
		}
	}
	var errs []string
	for _, err := range res.FileErrors {
		errs = append(errs, err.Error())
	}
	wantErrs := []string{broken + ":1:38: unexpected end of input (is the file truncated?)"}
	if diff := cmp.Diff(wantErrs, errs); diff != "" {
		t.Errorf("FileErrors (-want +got):\n%s", diff)
	}
}

func TestLoadRequiredMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.json")
	res := Load([]FileRef{{Path: missing, Level: LevelExplicit, Required: true}}, testEnv)
	if len(res.FileErrors) != 1 {
		t.Fatalf("FileErrors = %v, want one", res.FileErrors)
	}
	err := res.FileErrors[0]
	if want := missing + ": open: no such file or directory"; err.Error() != want {
		t.Errorf("err = %s, want %s", err, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err does not wrap fs.ErrNotExist")
	}
}

func TestLoadUnreadableDefault(t *testing.T) {
	// A directory where a file should be is reported even for a default
	// location: only a missing file is silence.
	dir := t.TempDir()
	res := Load([]FileRef{{Path: dir, Level: LevelUser}}, testEnv)
	if len(res.FileErrors) != 1 {
		t.Fatalf("FileErrors = %v, want one", res.FileErrors)
	}
}
