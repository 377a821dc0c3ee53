package config

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// Env is what discovery may look at. Adapters read the machine only
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
	Lookup LookupFunc
}

func (e Env) goos() string {
	if e.GOOS == "" {
		return runtime.GOOS
	}
	return e.GOOS
}

// lookup is Lookup, or os.LookupEnv when it is nil.
func (e Env) lookup(name string) (string, bool) { return orEnv(e.Lookup)(name) }

// Location is one file a provider may read.
type Location struct {
	Path  string
	Level Level
	// Key names the part of the file this location reads, for a file that
	// holds servers of several scopes (Claude Code's ~/.claude.json holds
	// the user's servers and, per project, the "local" ones); "" is the
	// provider's usual part. Parse gets it back unchanged.
	Key string
}

// Provider is one tool's config format (SPEC F1, §8): where its files are
// and how to turn one into canonical server configs.
type Provider struct {
	// Name is the tool's name as people know it: "Claude Code", "Cursor".
	Name string
	// ID is short and stable, for flags and JSON: "claude-code". It also
	// ranks the provider: see providerOrder.
	ID string
	// Locations lists the files to look at, project level before user
	// level. A missing file is silence.
	Locations func(env Env) []Location
	// Parse turns one file into server configs in file order, with Source
	// (provider, path, level, line) filled in and nothing substituted yet:
	// discovery substitutes once trust is known (SPEC F5, F6). A server
	// with a field of the wrong type has Err set (a *Diagnostic naming
	// file:line:column and field) and still claims its name; a file that
	// cannot be parsed at all is err, a *Diagnostic with its position.
	// Warnings (unsupported features, ignored fields of the wrong type)
	// are *Diagnostic too.
	Parse func(loc Location, data []byte, env Env) (servers []ServerConfig, warnings []*Diagnostic, err error)
	// Sniff reports whether a file given with --config is in this format.
	// LoadFiles asks every provider twice: first with data nil, when only
	// the path may decide (".toml", "/.cursor/mcp.json"), then with the
	// file's content, when a distinctive key may ("context_servers"). A
	// Sniff must therefore answer from the path alone when data is nil.
	Sniff func(path string, data []byte) bool
}

// providerOrder ranks providers as the SPEC §8 table does: a server name
// defined by an earlier provider shadows the same name in a later one
// (SPEC F2). Adapters register themselves from an init function in their
// own file, under one of these IDs; the order of registration does not
// matter. An ID not listed here ranks after all of these, by ID.
var providerOrder = []string{
	"switchboard",    // native.go
	"claude-code",    // claudecode.go
	"claude-desktop", // claudedesktop.go
	"cursor",         // cursor.go
	"vscode",         // vscode.go
	"windsurf",       // windsurf.go
	"cline",          // cline.go
	"codex",          // codex.go
	"gemini",         // gemini.go
	"opencode",       // opencode.go
	"zed",            // zed.go
	"goose",          // goose.go
	"kiro",           // kiro.go
	"lmstudio",       // lmstudio.go
	"crush",          // crush.go
	"continue",       // continue.go
}

var registry struct {
	mu        sync.Mutex
	providers []*Provider
}

// register adds a provider. It is called from init functions, so a
// mistake in one is a programming error and panics at startup.
func register(p *Provider) {
	if p.Name == "" || p.ID == "" || p.Locations == nil || p.Parse == nil || p.Sniff == nil {
		panic(fmt.Sprintf("config: provider %q/%q is missing a field", p.Name, p.ID))
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	for _, q := range registry.providers {
		if q.ID == p.ID {
			panic(fmt.Sprintf("config: provider %q registered twice", p.ID))
		}
	}
	registry.providers = append(registry.providers, p)
}

// Providers returns every registered provider in precedence order (SPEC
// §8). The slice is the caller's; the providers are shared.
func Providers() []*Provider {
	registry.mu.Lock()
	out := slices.Clone(registry.providers)
	registry.mu.Unlock()
	rank := func(id string) int {
		if i := slices.Index(providerOrder, id); i >= 0 {
			return i
		}
		return len(providerOrder)
	}
	slices.SortStableFunc(out, func(a, b *Provider) int {
		if ra, rb := rank(a.ID), rank(b.ID); ra != rb {
			return ra - rb
		}
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out
}

// ProviderByID returns the registered provider with that ID, or nil.
func ProviderByID(id string) *Provider {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	for _, p := range registry.providers {
		if p.ID == id {
			return p
		}
	}
	return nil
}
