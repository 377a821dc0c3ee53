package config

import (
	"path/filepath"
)

// Dirs finds the XDG base directories (DESIGN.md, "Directories"): the one
// place that decides where a config, cache or state directory is, for our
// own files and for other tools' that live under ~/.config. A variable
// that is unset or relative is ignored (the XDG spec calls a relative one
// invalid); with no home either, the directory is "" and nothing is read
// or written there.
type Dirs struct {
	// Home is the home directory; "" means $HOME from Lookup.
	Home string
	// Lookup reads the environment; nil means os.LookupEnv.
	Lookup LookupFunc
}

// ConfigHome is $XDG_CONFIG_HOME, or ~/.config, or "".
func (d Dirs) ConfigHome() string { return d.base("XDG_CONFIG_HOME", ".config") }

// CacheHome is $XDG_CACHE_HOME, or ~/.cache, or "".
func (d Dirs) CacheHome() string { return d.base("XDG_CACHE_HOME", ".cache") }

// StateHome is $XDG_STATE_HOME, or ~/.local/state, or "".
func (d Dirs) StateHome() string { return d.base("XDG_STATE_HOME", ".local", "state") }

// AbsEnv is the absolute path the variable name holds, or "": how tools
// that move their own folder ($CODEX_HOME, $CLAUDE_CONFIG_DIR) are read.
func (d Dirs) AbsEnv(name string) string {
	if v, ok := orEnv(d.Lookup)(name); ok && filepath.IsAbs(v) {
		return v
	}
	return ""
}

func (d Dirs) home() string {
	if d.Home != "" {
		return d.Home
	}
	home, _ := orEnv(d.Lookup)("HOME")
	return home
}

func (d Dirs) base(env string, fallback ...string) string {
	if v := d.AbsEnv(env); v != "" {
		return v
	}
	home := d.home()
	if home == "" {
		return ""
	}
	return filepath.Join(append([]string{home}, fallback...)...)
}

// app is dir/switchboard, or "" for no dir.
func app(dir string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "switchboard")
}

// UserConfigPath is the user's native config file,
// $XDG_CONFIG_HOME/switchboard/mcp.json or ~/.config/switchboard/mcp.json,
// or "" when neither XDG_CONFIG_HOME nor HOME is set. A nil lookup means
// os.LookupEnv.
func UserConfigPath(lookup LookupFunc) string {
	if dir := app(Dirs{Lookup: lookup}.ConfigHome()); dir != "" {
		return filepath.Join(dir, "mcp.json")
	}
	return ""
}

// ProjectConfigPath is a project's native config file,
// <projectDir>/.switchboard/mcp.json.
func ProjectConfigPath(projectDir string) string {
	return filepath.Join(projectDir, ".switchboard", "mcp.json")
}

// CacheDir is switchboard's cache directory, $XDG_CACHE_HOME/switchboard or
// ~/.cache/switchboard, or "" when neither variable is set.
func CacheDir(lookup LookupFunc) string { return app(Dirs{Lookup: lookup}.CacheHome()) }

// StateDir is switchboard's state directory (trust decisions, tokens),
// $XDG_STATE_HOME/switchboard or ~/.local/state/switchboard, or "" when
// neither variable is set.
func StateDir(lookup LookupFunc) string { return app(Dirs{Lookup: lookup}.StateHome()) }
