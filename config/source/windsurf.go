package source

import (
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/config"
)

// Windsurf, as its Cascade MCP documentation (docs.windsurf.com/windsurf/cascade/mcp)
// describes it: ~/.codeium/windsurf/mcp_config.json for the user (and
// .windsurf/mcp_config.json in a project), {"mcpServers": {name: entry}}.
// Its plugin for JetBrains IDEs keeps the same file one folder up, as
// ~/.codeium/mcp_config.json (docs.windsurf.com/plugins/cascade/mcp),
// read after the editor's.
// A local entry has "command", "args", "env"; a remote one has "serverUrl"
// (or "url") and "headers", streamable HTTP or SSE. "disabled" and
// "disabledTools" (tools switched off in its UI) are honoured. Windsurf
// interpolates ${env:NAME} in command, args, env, serverUrl, url and
// headers (an unset one is the server's error here, never sent as
// written); its ${file:…} is not supported and fails the server.
var windsurfDialect = &dialect{
	urlKeys:       []urlKey{{key: "serverUrl"}, {key: "url"}},
	disabled:      true,
	disabledTools: "disabledTools",
}

// windsurfFormat is Windsurf's format.
var windsurfFormat = &Provider{
	Name: "Windsurf",
	ID:   "windsurf",
	Locations: func(env Env) []Location {
		locs := projectAndUser(env, filepath.Join(".windsurf", "mcp_config.json"), env.inHome(".codeium", "windsurf", "mcp_config.json"))
		if jetbrains := env.inHome(".codeium", "mcp_config.json"); jetbrains != "" {
			locs = append(locs, Location{Path: jetbrains, Level: config.LevelUser})
		}
		return locs
	},
	Parse: func(loc Location, data []byte, env Env) ([]Entry, []*config.Diagnostic, error) {
		return parseMCPServers(loc, data, mcpFile{provider: "Windsurf", keys: []string{"mcpServers"}, jsonc: true, dialect: windsurfDialect, syntax: envVarSyntax("Windsurf", false, false, env), dedicated: true})
	},
	Sniff: func(path string, data []byte) bool {
		return nameIs(path, "/mcp_config.json") || entriesHaveKey(data, "mcpServers", "serverUrl")
	},
}
