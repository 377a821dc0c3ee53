package source

import (
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
)

// Cursor, as its MCP documentation (cursor.com/docs/context/mcp) describes
// it: ~/.cursor/mcp.json for the user and .cursor/mcp.json in a project,
// each {"mcpServers": {name: entry}}. An entry is a local server
// ({"type": "stdio", "command", "args", "env", "envFile"}) or a remote one
// ({"url", "headers"}, streamable HTTP or SSE, with "type" optional).
// Config interpolation: ${env:NAME}, ${userHome}, ${workspaceFolder},
// ${workspaceFolderBasename}, ${pathSeparator} and ${/} in command, args,
// env, url and headers; what an unset ${env:NAME} becomes is not
// documented, and switchboard makes it the server's error rather than
// send the reference. Any other ${…} is text. Cursor reads the file leniently, so comments and
// trailing commas are accepted. Servers are switched off in Cursor's UI,
// not in the file. "envFile" and OAuth settings ("auth") are not read:
// envFile is reported as a warning.
var cursorDialect = &dialect{
	extra: func(e *entry, key string, v *doc.Value) bool {
		if key == "envFile" {
			e.warn(v, key, "envFile is not supported; ignored (put the variables in env)")
			return true
		}
		return false
	},
}

// cursorFormat is Cursor's format.
var cursorFormat = &Provider{
	Name: "Cursor",
	ID:   "cursor",
	Locations: func(env Env) []Location {
		return projectAndUser(env, filepath.Join(".cursor", "mcp.json"), env.inHome(".cursor", "mcp.json"))
	},
	Parse: func(loc Location, data []byte, env Env) ([]Entry, []*config.Diagnostic, error) {
		return parseMCPServers(loc, data, mcpFile{provider: "Cursor", keys: []string{"mcpServers"}, jsonc: true, dialect: cursorDialect, syntax: envVarSyntax("Cursor", false, true, env), dedicated: true})
	},
	Sniff: func(path string, _ []byte) bool { return nameIs(path, "/.cursor/mcp.json") },
}
