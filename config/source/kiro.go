package source

import (
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/config"
)

// Kiro, as its MCP configuration guide (kiro.dev/docs/mcp/configuration)
// describes it: ~/.kiro/settings/mcp.json for the user and
// .kiro/settings/mcp.json in a workspace (the workspace wins), each
// {"mcpServers": {name: entry}}. A local entry has "command", "args",
// "env"; a remote one "url" and "headers". "disabled", "autoApprove" (tool
// names) and "disabledTools" are honoured. ${VAR} in values is expanded
// from the environment; the guide shows no default syntax, so an unset
// variable is the server's error.
var kiroDialect = &dialect{disabled: true, autoApprove: "autoApprove", disabledTools: "disabledTools"}

// kiroFormat is Kiro's format.
var kiroFormat = &Provider{
	Name: "Kiro",
	ID:   "kiro",
	Locations: func(env Env) []Location {
		return projectAndUser(env, filepath.Join(".kiro", "settings", "mcp.json"), env.inHome(".kiro", "settings", "mcp.json"))
	},
	Parse: func(loc Location, data []byte, _ Env) ([]Entry, []*config.Diagnostic, error) {
		return parseMCPServers(loc, data, mcpFile{provider: "Kiro", keys: []string{"mcpServers"}, dialect: kiroDialect, syntax: kiroSyntax, dedicated: true})
	},
	Sniff: func(path string, _ []byte) bool { return nameIs(path, "/.kiro/settings/mcp.json") },
}
