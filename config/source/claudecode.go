package source

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// Claude Code, as its MCP documentation (code.claude.com/docs/en/mcp) and
// settings reference (code.claude.com/docs/en/settings) describe it:
//
//   - Three scopes. "local" (the default of `claude mcp add`): in
//     ~/.claude.json under projects["<absolute project path>"].mcpServers,
//     for one project and one person. "project": .mcp.json at the project
//     root, meant to be checked in. "user": the top-level mcpServers of
//     ~/.claude.json. A name defined in several resolves local, then
//     project, then user; we rank them the same way.
//   - $CLAUDE_CONFIG_DIR, when set, moves ~/.claude.json to
//     $CLAUDE_CONFIG_DIR/.claude.json and ~/.claude/settings.json to
//     $CLAUDE_CONFIG_DIR/settings.json; Claude Code then reads only those.
//   - An entry is {"type": "stdio"|"http"|"sse", "command", "args", "env"}
//     or {"type", "url", "headers"}; "type" may be left out for a command,
//     and "streamable-http" is an alias of "http". Claude Code rejects a
//     url without "type", and any other spelling ("streamableHttp"), as
//     not matching its schema (anthropics/claude-code#43192, #45836, and
//     the "Invalid MCP server config" logs in 21st-dev/magic-mcp#82):
//     those are read here as before, with a warning at the entry.
//   - ${VAR} and ${VAR:-default} are expanded in command, args, env, url
//     and headers (claudeSyntax); nothing else is, and no value runs a
//     command.
//
// Turning servers off, which Claude Code keeps outside the entries:
//
//   - `/mcp disable` writes the server's name into
//     projects["<dir>"].disabledMcpServers of ~/.claude.json
//     (anthropics/claude-code#13311, #30595): in that project, a server of
//     any scope by that name is off.
//   - .mcp.json servers need the person's approval, kept in the settings
//     files — .claude/settings.local.json (where Claude Code writes it
//     since 2.1.197, anthropics/claude-code#75567), .claude/settings.json
//     and ~/.claude/settings.json: enableAllProjectMcpServers approves
//     them all, enabledMcpjsonServers by name, and disabledMcpjsonServers
//     rejects by name; "a disabledMcpjsonServers entry in any settings
//     file still rejects the server" (the MCP page, "Project server
//     approvals and workspace trust").
//
// A server turned off either way is disabled here and still claims its
// name. An approval grants nothing: whether a project's servers may run
// is switchboard's own project trust (DESIGN.md F6), so an approved
// server of an untrusted project stays untrusted, and one never approved
// runs once the project is trusted. The approval keys are read only to
// report a wrong type.
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
	Rulings:   claudeCodeRulings,
	Sniff: func(path string, data []byte) bool {
		return nameIs(path, "/.claude.json", "/.mcp.json") || topLevelKey(data, "projects") && topLevelKey(data, "mcpServers")
	},
}

// claudeUserMaxSize bounds ~/.claude.json. Claude Code keeps each project's
// history in it, so it grows with use: copies of 65 MB and 101 MB have
// been reported (anthropics/claude-code#6394, #2593), and refusing them
// would lose a person's servers. It is the person's own tool's file, in
// their home, never a project's; every other file keeps the default.
const claudeUserMaxSize = 128 << 20

// claudeCodeLocations lists the files with servers in precedence order,
// then the settings files, which have none but may turn .mcp.json's off.
func claudeCodeLocations(env Env) []Location {
	user, settings := env.inHome(".claude.json"), env.inHome(".claude", "settings.json")
	if dir, ok := env.lookup("CLAUDE_CONFIG_DIR"); ok && dir != "" {
		user, settings = filepath.Join(dir, ".claude.json"), filepath.Join(dir, "settings.json")
	}
	var locs []Location
	if env.ProjectDir != "" && user != "" {
		locs = append(locs, Location{Path: user, Level: config.LevelUser, Key: claudeLocalKey, MaxSize: claudeUserMaxSize})
	}
	if env.ProjectDir != "" {
		locs = append(locs, Location{Path: filepath.Join(env.ProjectDir, ".mcp.json"), Level: config.LevelProject})
	}
	if user != "" {
		locs = append(locs, Location{Path: user, Level: config.LevelUser, MaxSize: claudeUserMaxSize})
	}
	if env.ProjectDir != "" {
		for _, name := range []string{"settings.local.json", "settings.json"} {
			locs = append(locs, Location{Path: filepath.Join(env.ProjectDir, ".claude", name), Level: config.LevelProject})
		}
	}
	if settings != "" {
		locs = append(locs, Location{Path: settings, Level: config.LevelUser})
	}
	return locs
}

// claudeSettings reports whether path is one of Claude Code's settings
// files rather than a file of servers.
func claudeSettings(path string) bool {
	switch filepath.Base(path) {
	case "settings.json", "settings.local.json":
		return true
	}
	return false
}

// parseClaudeCode reads .mcp.json or one part of ~/.claude.json: the local
// scope with Key "local", else the top-level mcpServers. A file named with
// --config gives both, local scope first. A settings file gives no
// servers, only warnings about its approval keys.
func parseClaudeCode(loc Location, data []byte, env Env) ([]Entry, []*config.Diagnostic, error) {
	d, err := parseObject(loc, data, false)
	if err != nil || d == nil {
		return nil, nil, err
	}
	dec := newDecoder(d, "Claude Code", loc)
	dec.syntax = claudeSyntax
	if claudeSettings(loc.Path) {
		claudeApprovals(dec, d.Root)
		return nil, dec.warnings, nil
	}
	// A "projects" that is not an object is the local scope's error; the
	// user's servers stand without a disabled list.
	local := loc.Key == claudeLocalKey || loc.Level == config.LevelExplicit
	project, err := claudeProject(dec, env.ProjectDir)
	if err != nil && local {
		return nil, nil, err
	}
	var entries []Entry
	if local && project != nil {
		obj, err := dec.object(project, "mcpServers", "an object of server configs by name")
		if err != nil {
			return nil, nil, err
		}
		entries = dec.servers(obj, decodeClaudeCode)
	}
	if loc.Key != claudeLocalKey {
		obj, err := dec.object(d.Root, "mcpServers", "an object of server configs by name")
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, dec.servers(obj, decodeClaudeCode)...)
		if loc.Level == config.LevelProject || filepath.Base(loc.Path) == ".mcp.json" {
			dec.misplaced(d.Root, "Claude Code", "mcpServers")
		}
	}
	// The local scope's part reports the list's problems, once.
	off := claudeNames(dec, project, "disabledMcpServers", local)
	for i := range entries {
		if slices.Contains(off, entries[i].Config.Name) {
			entries[i].Config.Disabled = true
		}
	}
	return entries, dec.warnings, nil
}

// claudeCodeRulings turns off the .mcp.json servers that a settings file
// rejects, and those `/mcp disable` turned off in ~/.claude.json for the
// project (its own servers Parse turns off).
func claudeCodeRulings(loc Location, data []byte, env Env) []Ruling {
	if env.ProjectDir == "" {
		return nil
	}
	key := "disabledMcpjsonServers"
	if !claudeSettings(loc.Path) {
		if loc.Key != claudeLocalKey {
			return nil
		}
		key = "disabledMcpServers"
	}
	// ~/.claude.json can be large: parse it again only when it has a list.
	if !bytes.Contains(data, []byte(`"`+key+`"`)) {
		return nil
	}
	d, err := parseObject(loc, data, false)
	if err != nil || d == nil {
		return nil
	}
	dec := newDecoder(d, "Claude Code", loc)
	from := d.Root
	if key == "disabledMcpServers" {
		if from, _ = claudeProject(dec, env.ProjectDir); from == nil {
			return nil
		}
	}
	names := claudeNames(dec, from, key, false)
	if len(names) == 0 {
		return nil
	}
	return []Ruling{{Path: filepath.Join(env.ProjectDir, ".mcp.json"), Names: names}}
}

// claudeApprovals checks the approval keys of a settings file, which
// switchboard reads but does not act on (see above), and its rejections.
func claudeApprovals(dec *decoder, root *doc.Value) {
	claudeNames(dec, root, "enabledMcpjsonServers", true)
	claudeNames(dec, root, "disabledMcpjsonServers", true)
	if v := root.Member("enableAllProjectMcpServers"); !doc.Nullish(v) && v.Kind != doc.Bool {
		dec.warnings = append(dec.warnings, dec.doc.Diag(v.Off, "", "enableAllProjectMcpServers", fmt.Sprintf("want true or false, got %s; ignored", v.Kind)))
	}
}

// claudeNames reads the list of server names under key in obj (nil: none);
// with warn, a value of the wrong type is a warning, and is skipped.
func claudeNames(dec *decoder, obj *doc.Value, key string, warn bool) []string {
	if obj == nil {
		return nil
	}
	v := obj.Member(key)
	if doc.Nullish(v) {
		return nil
	}
	e := &entry{d: dec, c: &config.ServerConfig{}, fields: map[string]int{}}
	names := e.strList(v, key, false)
	if warn {
		dec.warnings = append(dec.warnings, e.warnings...)
	}
	return names
}

// claudeProject finds projects[projectDir], or nil.
func claudeProject(dec *decoder, projectDir string) (*doc.Value, error) {
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
	return project, nil
}

// claudeTypes are the spellings of "type" Claude Code accepts.
var claudeTypes = map[string]bool{"stdio": true, "http": true, "streamable-http": true, "sse": true}

// decodeClaudeCode is the common entry, with a warning where Claude Code
// itself would reject what switchboard reads.
func decodeClaudeCode(e *entry, v *doc.Value) bool {
	ok := claudeDialect.decode(e, v)
	t, u := v.Member("type"), v.Member("url")
	switch {
	case t != nil && t.Kind == doc.String && !claudeTypes[t.Str] && knownType(t.Str):
		e.warn(t, "type", fmt.Sprintf("Claude Code rejects the type %q and does not start this server (it takes \"stdio\", \"http\", \"streamable-http\" or \"sse\"); read here as %s", clip.Text(t.Str), transportLabel(e.c.Type)))
	case doc.Nullish(t) && u != nil && u.Kind == doc.String && v.Member("command") == nil:
		e.warn(u, "url", "Claude Code rejects a url without \"type\" and does not start this server (add \"type\": \"http\" or \"sse\"); read here as streamable HTTP, falling back to SSE")
	}
	return ok
}

// knownType reports whether switchboard reads s as a type (an unknown one
// is the server's error already).
func knownType(s string) bool {
	_, ok := transportNames[strings.ToLower(s)]
	return ok
}

// transportLabel names a transport in a message.
func transportLabel(t config.Transport) string {
	switch t {
	case config.TransportHTTP:
		return "streamable HTTP"
	case config.TransportSSE:
		return "SSE"
	case config.TransportStdio:
		return "stdio"
	}
	return "streamable HTTP, falling back to SSE"
}
