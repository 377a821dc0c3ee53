package source

import (
	"bytes"
	"path/filepath"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
)

// Crush (charmbracelet/crush), as its README ("Configuration", "MCPs")
// describes it: .crush.json, then crush.json in the project, then
// ~/.config/crush/crush.json, each JSON with a "$schema" of
// https://charm.land/crush.json. Servers are under "mcp": {name: entry},
// with "type" "stdio" ("command", "args", "env"), "http" or "sse" ("url",
// "headers"); "disabled", "disabled_tools" (MCPConfig.DisabledTools in
// internal/config/config.go: "List of tools from this MCP server to
// disable", our deny list) and "timeout" (seconds) are honoured. Values are
// expanded like a shell would (internal/config/resolve.go): $VAR, ${VAR}
// and $(command); see crushSyntax.
var crushDialect = &dialect{disabled: true, disabledTools: "disabled_tools", timeout: time.Second}

// crushFormat is Crush's format.
var crushFormat = &Provider{
	Name: "Crush",
	ID:   "crush",
	Locations: func(env Env) []Location {
		var locs []Location
		if env.ProjectDir != "" {
			locs = append(locs,
				Location{Path: filepath.Join(env.ProjectDir, ".crush.json"), Level: config.LevelProject},
				Location{Path: filepath.Join(env.ProjectDir, "crush.json"), Level: config.LevelProject})
		}
		if env.Home != "" {
			locs = append(locs, Location{Path: under(env.configHome(), "crush", "crush.json"), Level: config.LevelUser})
		}
		return locs
	},
	Parse: parseCrush,
	Sniff: func(path string, data []byte) bool {
		return nameIs(path, "/crush.json", "/.crush.json") || bytes.Contains(data, []byte("charm.land/crush"))
	},
}

func parseCrush(loc Location, data []byte, _ Env) ([]Entry, []*config.Diagnostic, error) {
	return parseMCPServers(loc, data, mcpFile{provider: "Crush", keys: []string{"mcp"}, jsonc: true, dialect: crushDialect, syntax: crushSyntax})
}
