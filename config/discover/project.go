package discover

import (
	"context"
	"os"
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/source"
)

// Project is the project a person working in dir is in, "" for none
// (DESIGN.md F6): dir, when it holds a project config file of any tool
// known, or when it or a folder above it holds a repository (.git).
// Whatever the working directory happens to be (/tmp, /, a downloads
// folder) is no project: nothing there is distrusted, and nothing there
// is offered to servers or runs them. The home directory and / are never
// one, and the search for a repository stops below home: a home kept in
// git is not a project every folder under it belongs to.
func Project(ctx context.Context, dir string, env source.Env) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	home := ""
	if env.Home != "" {
		if h, err := filepath.Abs(env.Home); err == nil {
			home = h
		}
	}
	if isTop(dir, home) {
		return ""
	}
	env.ProjectDir, env.Home = dir, home
	d, _ := collect(ctx, nil, env, true)
	for _, src := range d.Sources {
		// One that cannot be read (a pipe, a device) is a project's too,
		// and its error is reported there.
		if src.Level == config.LevelProject && (src.Found || src.Error != "") {
			return dir
		}
	}
	for at := dir; !isTop(at, home); at = filepath.Dir(at) {
		if _, err := os.Lstat(filepath.Join(at, ".git")); err == nil {
			return dir
		}
	}
	return ""
}

// isTop reports whether the search for a project stops at dir: the root
// of the file system, or home.
func isTop(dir, home string) bool {
	return filepath.Dir(dir) == dir || home != "" && samePath(dir, home)
}
