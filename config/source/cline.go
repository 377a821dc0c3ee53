package source

import (
	"path/filepath"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
)

// Cline, as its MCP documentation (docs.cline.bot/mcp/configuring-mcp-servers)
// and its McpHub describe it: one user-level file, cline_mcp_settings.json,
// in the VS Code extension's global storage
// (Code/User/globalStorage/saoudrizwan.claude-dev/settings/) and, for the
// Cline CLI, in ~/.cline/data/settings/ (or $CLINE_MCP_SETTINGS_PATH).
// {"mcpServers": {name: entry}} where an entry has "command", "args",
// "env" or "url", "headers"; "type" is "stdio", "sse" or "streamableHttp",
// and older files say "transportType" instead; a url with neither is SSE.
// "disabled" and "autoApprove" (tool names) are honoured, and "timeout" is
// the request timeout in seconds (Cline allows 30 to 3600, default 60).
// Cline expands ${env:NAME} in the file before reading it
// (utils/envExpansion.ts) and leaves a missing variable as written;
// switchboard does not send it, so it is the server's error. No other
// form is expanded.
var clineDialect = &dialect{
	typeKeys:    []string{"type", "transportType"},
	urlNoType:   config.TransportSSE,
	disabled:    true,
	autoApprove: "autoApprove",
	timeout:     time.Second,
}

// clineFormat is Cline's format.
var clineFormat = &Provider{
	Name: "Cline",
	ID:   "cline",
	Locations: func(env Env) []Location {
		if env.Home == "" {
			return nil
		}
		const settings = "cline_mcp_settings.json"
		locs := []Location{{
			Path:  under(env.appSupport(), "Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", settings),
			Level: config.LevelUser,
		}}
		cli := env.inHome(".cline", "data", "settings", settings)
		if p, ok := env.lookup("CLINE_MCP_SETTINGS_PATH"); ok && filepath.IsAbs(p) {
			cli = p
		}
		return append(locs, Location{Path: cli, Level: config.LevelUser})
	},
	Parse: func(loc Location, data []byte, env Env) ([]Entry, []*config.Diagnostic, error) {
		return parseMCPServers(loc, data, mcpFile{provider: "Cline", keys: []string{"mcpServers"}, dialect: clineDialect, syntax: envVarSyntax("Cline", false, false, env), dedicated: true})
	},
	Sniff: func(path string, data []byte) bool {
		return nameIs(path, "/cline_mcp_settings.json") || entriesHaveKey(data, "mcpServers", "transportType")
	},
}
