package config

import (
	"path/filepath"
	"time"
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
var clineDialect = &dialect{
	typeKeys:    []string{"type", "transportType"},
	urlNoType:   TransportSSE,
	disabled:    true,
	autoApprove: "autoApprove",
	timeout:     time.Second,
}

func init() {
	register(&Provider{
		Name: "Cline",
		ID:   "cline",
		Locations: func(env Env) []Location {
			if env.Home == "" {
				return nil
			}
			const settings = "cline_mcp_settings.json"
			locs := []Location{{
				Path:  filepath.Join(env.appSupport(), "Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", settings),
				Level: LevelUser,
			}}
			cli := filepath.Join(env.Home, ".cline", "data", "settings", settings)
			if p, ok := env.lookup("CLINE_MCP_SETTINGS_PATH"); ok && filepath.IsAbs(p) {
				cli = p
			}
			return append(locs, Location{Path: cli, Level: LevelUser})
		},
		Parse: func(loc Location, data []byte, _ Env) ([]ServerConfig, []*Diagnostic, error) {
			return parseMCPServers("Cline", loc, data, "mcpServers", false, clineDialect, nil)
		},
		Sniff: func(path string, data []byte) bool {
			return nameIs(path, "/cline_mcp_settings.json") || entriesHaveKey(data, "mcpServers", "transportType")
		},
	})
}
