package config

import (
	"path/filepath"
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
//     headers, as discovery does for every source.
//
// Local-scope entries apply to one project but are written by the person's
// own claude CLI into their home directory, so they are level user: trusted,
// like the rest of ~/.claude.json, with no `switchboard trust` needed.
// Everything else in ~/.claude.json (history, OAuth state, …) is ignored.

// claudeLocalKey is the Location.Key of the local-scope part of
// ~/.claude.json.
const claudeLocalKey = "local"

var claudeDialect = &dialect{}

func init() {
	register(&Provider{
		Name:      "Claude Code",
		ID:        "claude-code",
		Locations: claudeCodeLocations,
		Parse:     parseClaudeCode,
		Sniff: func(path string, data []byte) bool {
			return nameIs(path, "/.claude.json", "/.mcp.json") || topLevelKey(data, "projects") && topLevelKey(data, "mcpServers")
		},
	})
}

func claudeCodeLocations(env Env) []Location {
	user := ""
	if env.Home != "" {
		user = filepath.Join(env.Home, ".claude.json")
	}
	if dir, ok := env.lookup("CLAUDE_CONFIG_DIR"); ok && dir != "" {
		user = filepath.Join(dir, ".claude.json")
	}
	var locs []Location
	if env.ProjectDir != "" && user != "" {
		locs = append(locs, Location{Path: user, Level: LevelUser, Key: claudeLocalKey})
	}
	if env.ProjectDir != "" {
		locs = append(locs, Location{Path: filepath.Join(env.ProjectDir, ".mcp.json"), Level: LevelProject})
	}
	if user != "" {
		locs = append(locs, Location{Path: user, Level: LevelUser})
	}
	return locs
}

// parseClaudeCode reads .mcp.json or one part of ~/.claude.json: the local
// scope with Key "local", else the top-level mcpServers. A file named with
// --config gives both, local scope first.
func parseClaudeCode(loc Location, data []byte, env Env) ([]ServerConfig, []*Diagnostic, error) {
	const name = "Claude Code"
	doc, err := parseJSONDoc(name, loc, data, false)
	if err != nil || doc.root == nil {
		return nil, nil, err
	}
	var servers []ServerConfig
	if loc.Key == claudeLocalKey || loc.Level == LevelExplicit {
		obj, err := claudeLocalServers(doc, env.ProjectDir)
		if err != nil {
			return nil, nil, err
		}
		servers = doc.decodeServers(obj, claudeDialect.decode)
	}
	if loc.Key != claudeLocalKey {
		obj, err := doc.object(doc.root, "mcpServers", "server configs by name")
		if err != nil {
			return nil, nil, err
		}
		servers = append(servers, doc.decodeServers(obj, claudeDialect.decode)...)
	}
	return servers, doc.warnings, nil
}

// claudeLocalServers finds projects[projectDir].mcpServers, or nil.
func claudeLocalServers(doc *jsonDoc, projectDir string) (*jsonValue, error) {
	if projectDir == "" {
		return nil, nil
	}
	projects, err := doc.object(doc.root, "projects", "projects by path")
	if err != nil || projects == nil {
		return nil, err
	}
	var project *jsonValue
	for _, m := range projects.members {
		if m.key == projectDir || filepath.Clean(m.key) == filepath.Clean(projectDir) {
			project = m.val
		}
	}
	if project == nil || project.kind != jsonObject {
		return nil, nil
	}
	return doc.object(project, "mcpServers", "server configs by name")
}
