package source

import (
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
)

// Claude Code, as its MCP documentation (docs.anthropic.com/en/docs/claude-code/mcp)
// describes it:
//
//   - Three scopes. "local" (the default of `claude mcp add`): in
//     ~/.claude.json under projects["<absolute project path>"].mcpServers,
//     for one project and one person. "project": .mcp.json at the project
//     root, meant to be checked in. "user": the top-level mcpServers of
//     ~/.claude.json. A name defined in several resolves local, then
//     project, then user; we rank them the same way.
//   - $CLAUDE_CONFIG_DIR, when set, moves ~/.claude.json to
//     $CLAUDE_CONFIG_DIR/.claude.json; Claude Code then reads only that one.
//   - An entry is {"type": "stdio"|"http"|"sse", "command", "args", "env"}
//     or {"type", "url", "headers"}; "type" may be left out for a command.
//   - ${VAR} and ${VAR:-default} are expanded in command, args, env, url and
//     headers (claudeSyntax); nothing else is, and no value runs a command.
//
// Local-scope entries apply to one project but are written by the person's
// own claude CLI into their home directory, so they are level user: trusted,
// like the rest of ~/.claude.json, with no `switchboard trust` needed.
// Everything else in ~/.claude.json (history, OAuth state, …) is ignored.

// claudeLocalKey is the Location.Key of the local-scope part of
// ~/.claude.json.
const claudeLocalKey = "local"

var claudeDialect = &dialect{}

// claudeCodeFormat is Claude Code's format.
var claudeCodeFormat = &Provider{
	Name:      "Claude Code",
	ID:        "claude-code",
	Locations: claudeCodeLocations,
	Parse:     parseClaudeCode,
	Sniff: func(path string, data []byte) bool {
		return nameIs(path, "/.claude.json", "/.mcp.json") || topLevelKey(data, "projects") && topLevelKey(data, "mcpServers")
	},
}

func claudeCodeLocations(env Env) []Location {
	user := env.inHome(".claude.json")
	if dir, ok := env.lookup("CLAUDE_CONFIG_DIR"); ok && dir != "" {
		user = filepath.Join(dir, ".claude.json")
	}
	var locs []Location
	if env.ProjectDir != "" && user != "" {
		locs = append(locs, Location{Path: user, Level: config.LevelUser, Key: claudeLocalKey})
	}
	if env.ProjectDir != "" {
		locs = append(locs, Location{Path: filepath.Join(env.ProjectDir, ".mcp.json"), Level: config.LevelProject})
	}
	if user != "" {
		locs = append(locs, Location{Path: user, Level: config.LevelUser})
	}
	return locs
}

// parseClaudeCode reads .mcp.json or one part of ~/.claude.json: the local
// scope with Key "local", else the top-level mcpServers. A file named with
// --config gives both, local scope first.
func parseClaudeCode(loc Location, data []byte, env Env) ([]Entry, []*config.Diagnostic, error) {
	d, err := parseObject(loc, data, false)
	if err != nil || d == nil {
		return nil, nil, err
	}
	dec := newDecoder(d, "Claude Code", loc)
	dec.syntax = claudeSyntax
	var entries []Entry
	if loc.Key == claudeLocalKey || loc.Level == config.LevelExplicit {
		obj, err := claudeLocalServers(dec, env.ProjectDir)
		if err != nil {
			return nil, nil, err
		}
		entries = dec.servers(obj, claudeDialect.decode)
	}
	if loc.Key != claudeLocalKey {
		obj, err := dec.object(d.Root, "mcpServers", "an object of server configs by name")
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, dec.servers(obj, claudeDialect.decode)...)
	}
	return entries, dec.warnings, nil
}

// claudeLocalServers finds projects[projectDir].mcpServers, or nil.
func claudeLocalServers(dec *decoder, projectDir string) (*doc.Value, error) {
	if projectDir == "" {
		return nil, nil
	}
	projects, err := dec.object(dec.doc.Root, "projects", "an object of projects by path")
	if err != nil || projects == nil {
		return nil, err
	}
	var project *doc.Value
	for _, m := range projects.Members {
		if m.Key == projectDir || filepath.Clean(m.Key) == filepath.Clean(projectDir) {
			project = m.Val
		}
	}
	if project == nil || project.Kind != doc.Object {
		return nil, nil
	}
	return dec.object(project, "mcpServers", "an object of server configs by name")
}
