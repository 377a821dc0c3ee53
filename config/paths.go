package config

import (
	"path/filepath"
)

// UserConfigPath is the user's native config file,
// $XDG_CONFIG_HOME/switchboard/mcp.json or ~/.config/switchboard/mcp.json,
// or "" when neither XDG_CONFIG_HOME nor HOME is set. A nil lookup means
// os.LookupEnv.
func UserConfigPath(lookup LookupFunc) string {
	dir := xdgDir(lookup, "XDG_CONFIG_HOME", ".config")
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "switchboard", "mcp.json")
}

// ProjectConfigPath is a project's native config file,
// <projectDir>/.switchboard/mcp.json.
func ProjectConfigPath(projectDir string) string {
	return filepath.Join(projectDir, ".switchboard", "mcp.json")
}

// CacheDir is switchboard's cache directory, $XDG_CACHE_HOME/switchboard or
// ~/.cache/switchboard, or "" when neither variable is set.
func CacheDir(lookup LookupFunc) string {
	return appDir(xdgDir(lookup, "XDG_CACHE_HOME", ".cache"))
}

// StateDir is switchboard's state directory (trust decisions, tokens),
// $XDG_STATE_HOME/switchboard or ~/.local/state/switchboard, or "" when
// neither variable is set.
func StateDir(lookup LookupFunc) string {
	return appDir(xdgDir(lookup, "XDG_STATE_HOME", ".local", "state"))
}

func appDir(base string) string {
	if base == "" {
		return ""
	}
	return filepath.Join(base, "switchboard")
}

// xdgDir is the XDG base directory named by env, or home joined with
// fallback. The XDG spec says a relative value is invalid and is ignored.
func xdgDir(lookup LookupFunc, env string, fallback ...string) string {
	lookup = orEnv(lookup)
	if v, ok := lookup(env); ok && filepath.IsAbs(v) {
		return v
	}
	home, ok := lookup("HOME")
	if !ok || home == "" {
		return ""
	}
	return filepath.Join(append([]string{home}, fallback...)...)
}
