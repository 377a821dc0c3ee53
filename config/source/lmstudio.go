package source

import "github.com/switchboard-mcp/switchboard/config"

// LM Studio, as its MCP page (lmstudio.ai/docs/app/mcp) describes it: since
// 0.3.17 it is an MCP host reading ~/.lmstudio/mcp.json, which "follows
// Cursor's mcp.json notation": {"mcpServers": {name: entry}} with
// "command", "args", "env" for a local server and "url", "headers" for a
// remote one. There is no project level, and the page documents no
// variable references: values are taken as written.
// lmstudioFormat is LM Studio's format.
var lmstudioFormat = &Provider{
	Name: "LM Studio",
	ID:   "lmstudio",
	Locations: func(env Env) []Location {
		if env.Home == "" {
			return nil
		}
		return []Location{{Path: env.inHome(".lmstudio", "mcp.json"), Level: config.LevelUser}}
	},
	Parse: func(loc Location, data []byte, env Env) ([]Entry, []*config.Diagnostic, error) {
		return parseMCPServers(loc, data, mcpFile{provider: "LM Studio", keys: []string{"mcpServers"}, jsonc: true, dialect: cursorDialect, syntax: noVariables, dedicated: true})
	},
	Sniff: func(path string, _ []byte) bool { return nameIs(path, "/.lmstudio/mcp.json") },
}
