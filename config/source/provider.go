// Package source reads the MCP server configs of every tool switchboard
// knows (DESIGN.md F1, §8): our own file and Claude Code's, Cursor's, VS
// Code's, … each in a file of its own, all through one positioned tree and
// one entry decoder (DESIGN.md, "Sources"). It turns files into canonical
// configs; which definition wins is discovery's business.
package source

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/switchboard-mcp/switchboard/config"
)

// Env is what a provider may look at. Providers read the machine only
// through it, so tests point Home at a folder of sample files.
type Env struct {
	// Home is the user's home directory.
	Home string
	// ProjectDir is the project whose project-level files are read
	// (absolute), or "" for none.
	ProjectDir string
	// GOOS selects platform paths ("linux", "darwin"); "" means runtime.GOOS.
	GOOS string
	// Lookup reads environment variables (XDG_CONFIG_HOME,
	// CLAUDE_CONFIG_DIR, substitution). Nil means os.LookupEnv.
	Lookup config.LookupFunc
}

func (e Env) goos() string {
	if e.GOOS == "" {
		return runtime.GOOS
	}
	return e.GOOS
}

// lookup reads a variable through Lookup, or os.LookupEnv when it is nil.
func (e Env) lookup(name string) (string, bool) {
	if e.Lookup == nil {
		return os.LookupEnv(name)
	}
	return e.Lookup(name)
}

// dirs are the XDG directories of this home.
func (e Env) dirs() config.Dirs { return config.Dirs{Home: e.Home, Lookup: e.Lookup} }

// configHome is $XDG_CONFIG_HOME, or ~/.config, or "" (config.Dirs).
func (e Env) configHome() string { return e.dirs().ConfigHome() }

// absEnv is the absolute path a variable holds, or "".
func (e Env) absEnv(name string) string { return e.dirs().AbsEnv(name) }

// appSupport is where desktop apps keep their files: ~/.config on Linux,
// ~/Library/Application Support on macOS; "" with no home.
func (e Env) appSupport() string {
	if e.goos() == "darwin" {
		if e.Home == "" {
			return ""
		}
		return filepath.Join(e.Home, "Library", "Application Support")
	}
	return e.configHome()
}

// inHome joins elem under the home directory, or is "" with no home.
func (e Env) inHome(elem ...string) string {
	if e.Home == "" {
		return ""
	}
	return filepath.Join(append([]string{e.Home}, elem...)...)
}

// under joins elem under dir, or is "" when dir is.
func under(dir string, elem ...string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(append([]string{dir}, elem...)...)
}

// Location is one file a provider may read.
type Location struct {
	Path  string
	Level config.Level
	// Key names the part of the file this location reads, for a file that
	// holds servers of several scopes (Claude Code's ~/.claude.json holds
	// the user's servers and, per project, the "local" ones); "" is the
	// provider's usual part. Parse gets it back unchanged.
	Key string
	// MaxSize is the most bytes discovery reads from the file; a larger
	// file is that location's error. 0 means safefile.MaxConfigSize.
	MaxSize int64
	// Err, when set, is why the location could not even be listed (a
	// folder of config files that is a named pipe, say): discovery
	// reports it as the error of Path and reads nothing there.
	Err error
}

// Provider is one tool's config format (DESIGN.md F1, §8): where its files are
// and how to turn one into canonical server configs.
type Provider struct {
	// Name is the tool's name as people know it: "Claude Code", "Cursor".
	Name string
	// ID is short and stable, for flags and JSON: "claude-code".
	ID string
	// Locations lists the files to look at, project level before user
	// level. A missing file is silence; a location with an empty Path is
	// left out (no home to find it in).
	Locations func(env Env) []Location
	// Parse turns one file into entries in file order, with Source
	// (provider, path, level, line) filled in and nothing substituted yet:
	// discovery substitutes once trust is known (DESIGN.md F5, F6). A server
	// with a field of the wrong type has Err set (a *config.Diagnostic
	// naming file:line:column and field) and still claims its name; a file
	// that cannot be parsed at all is err, a *config.Diagnostic with its
	// position. Warnings (unsupported features, ignored fields of the wrong
	// type) are *config.Diagnostic too.
	Parse func(loc Location, data []byte, env Env) (entries []Entry, warnings []*config.Diagnostic, err error)
	// Rulings, when set, reads what one of the tool's files says about
	// servers its other files define: Claude Code's settings.json rejects
	// servers of .mcp.json by name. Discovery asks it of every file of
	// the provider it read, and turns the servers named off before any of
	// its rules (DESIGN.md, "Discovery"). Problems with the file are
	// Parse's to report. Nil: each file stands alone.
	Rulings func(loc Location, data []byte, env Env) []Ruling
	// Sniff reports whether a file given with --config is in this format.
	// Detect asks every provider twice: first with data nil, when only the
	// path may decide (".toml", "/.cursor/mcp.json"), then with the file's
	// content, when a distinctive key may ("context_servers"). A Sniff
	// must therefore answer from the path alone when data is nil.
	Sniff func(path string, data []byte) bool
}

// Ruling turns off servers that another file of the same tool defines:
// those named Names in the file at Path, as the tool leaves them off. A
// turned-off server is disabled and still claims its name (DESIGN.md F2).
type Ruling struct {
	Path  string
	Names []string
}

// All returns every provider in precedence order, the order of
// DESIGN.md's "Sources" list: a server name defined by an earlier provider
// shadows the same name in a later one (DESIGN.md F2). This list is the
// only place that order is written. The slice is the caller's; the
// providers are shared.
func All() []*Provider {
	return []*Provider{
		Native,              // native.go
		claudeCodeFormat,    // claudecode.go
		claudeDesktopFormat, // claudedesktop.go
		cursorFormat,        // cursor.go
		vscodeFormat,        // vscode.go
		windsurfFormat,      // windsurf.go
		clineFormat,         // cline.go
		codexFormat,         // codex.go
		geminiFormat,        // gemini.go
		opencodeFormat,      // opencode.go
		zedFormat,           // zed.go
		gooseFormat,         // goose.go
		kiroFormat,          // kiro.go
		lmstudioFormat,      // lmstudio.go
		crushFormat,         // crush.go
		continueFormat,      // continue.go
	}
}

// ByID returns the provider with that ID, or nil.
func ByID(id string) *Provider {
	for _, p := range All() {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// Detect returns the provider whose format a file is in: the first (in
// precedence order) whose Sniff recognises the path alone, else the first
// that recognises the content, else the native format, which reads any
// mcpServers file.
func Detect(path string, data []byte) *Provider {
	passes := [][]byte{nil}
	if data != nil {
		passes = append(passes, data)
	}
	for _, content := range passes {
		for _, p := range All() {
			if safeSniff(p, path, content) {
				return p
			}
		}
	}
	return Native
}

func safeSniff(p *Provider, path string, data []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return p.Sniff(path, data)
}

// Locations lists a provider's locations, turning a panic into an error
// and leaving out those with no path.
func Locations(p *Provider, env Env) (locs []Location, err error) {
	defer func() {
		if r := recover(); r != nil {
			locs, err = nil, fmt.Errorf("internal error listing locations: %v", r)
		}
	}()
	for _, l := range p.Locations(env) {
		if l.Path != "" {
			locs = append(locs, l)
		}
	}
	return locs, nil
}

// projectAndUser lists a project-level file (when there is a project) and
// a user-level one (when there is a path for it), in that order.
func projectAndUser(env Env, project, user string) []Location {
	var locs []Location
	if env.ProjectDir != "" && project != "" {
		locs = append(locs, Location{Path: filepath.Join(env.ProjectDir, project), Level: config.LevelProject})
	}
	if user != "" {
		locs = append(locs, Location{Path: user, Level: config.LevelUser})
	}
	return locs
}
