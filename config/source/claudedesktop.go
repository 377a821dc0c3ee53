package source

import "github.com/switchboard-mcp/switchboard/config"

// Claude Desktop, as the MCP quickstart (modelcontextprotocol.io/quickstart/user)
// and Anthropic's help center describe it: one user-level file,
// claude_desktop_config.json, in ~/Library/Application Support/Claude on
// macOS and ~/.config/Claude on Linux, holding {"mcpServers": {name:
// {"command", "args", "env"}}}. Claude Desktop starts only local (stdio)
// servers from this file — remote ones are added as connectors in its UI —
// but a "url" entry in the shape Claude Code uses is read all the same. It
// has no project level, and documents no variable references: values are
// taken as written (the quickstart's env holds the token itself).
// claudeDesktopFormat is Claude Desktop's format.
var claudeDesktopFormat = &Provider{
	Name: "Claude Desktop",
	ID:   "claude-desktop",
	Locations: func(env Env) []Location {
		if env.Home == "" {
			return nil
		}
		return []Location{{Path: under(env.appSupport(), "Claude", "claude_desktop_config.json"), Level: config.LevelUser}}
	},
	Parse: func(loc Location, data []byte, _ Env) ([]Entry, []*config.Diagnostic, error) {
		return parseMCPServers(loc, data, mcpFile{provider: "Claude Desktop", keys: []string{"mcpServers"}, dialect: claudeDialect, syntax: noVariables, dedicated: true})
	},
	Sniff: func(path string, _ []byte) bool { return nameIs(path, "/claude_desktop_config.json") },
}
