package source

import (
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/config"
)

// VS Code, as its MCP configuration reference
// (code.visualstudio.com/docs/copilot/reference/mcp-configuration)
// describes it: mcp.json in the user profile (~/.config/Code/User on Linux,
// ~/Library/Application Support/Code/User on macOS) and .vscode/mcp.json in
// a workspace. The file is JSONC with two sections: "servers", an object of
// entries by name, and "inputs", prompts for secrets that VS Code shows.
// An entry is {"type": "stdio", "command", "args", "env", "envFile",
// "cwd"} or {"type": "http"|"sse", "url", "headers"}. Before 1.102 the
// user's servers were the "mcp" setting in settings.json, {"mcp":
// {"servers": {…}}}; VS Code moves them into mcp.json when it starts (its
// 1.102 release notes; microsoft/vscode#255943), so a settings.json not yet
// migrated is read too, after mcp.json.
//
// Predefined variables (its configurationResolver's variableResolver.ts):
// ${workspaceFolder} (the project directory here), ${userHome},
// ${pathSeparator}, ${env:NAME}, which is "" when the variable is unset
// ("as a normal shell does"), and ${input:id}. Any other ${…} is left as
// written, and so are $NAME and ${NAME}: VS Code does not expand them.
//
// switchboard has no UI to prompt with, so "inputs" is ignored and a
// server that uses ${input:…} fails with an error that says so; "envFile"
// is reported as a warning and ignored; "dev" (watch and debug settings)
// is ignored.
var vscodeDialect = &dialect{cwd: true, extra: cursorDialect.extra}

// vscodeFormat is VS Code's format.
var vscodeFormat = &Provider{
	Name: "VS Code",
	ID:   "vscode",
	Locations: func(env Env) []Location {
		user := under(env.appSupport(), "Code", "User")
		locs := projectAndUser(env, filepath.Join(".vscode", "mcp.json"), under(user, "mcp.json"))
		if user != "" {
			locs = append(locs, Location{Path: filepath.Join(user, "settings.json"), Level: config.LevelUser})
		}
		return locs
	},
	Parse: func(loc Location, data []byte, env Env) ([]Entry, []*config.Diagnostic, error) {
		f := mcpFile{provider: "VS Code", keys: []string{"servers"}, jsonc: true, dialect: vscodeDialect,
			syntax: envVarSyntax("VS Code", true, true, env), dedicated: true}
		if vscodeSettings(loc.Path) {
			f.keys, f.dedicated = []string{"mcp", "servers"}, false
		}
		return parseMCPServers(loc, data, f)
	},
	Sniff: func(path string, data []byte) bool {
		return nameIs(path, "/.vscode/mcp.json", "/Code/User/mcp.json", "/Code/User/settings.json") ||
			topLevelKey(data, "servers") && !topLevelKey(data, "mcpServers")
	},
}

// vscodeSettings reports whether path is a settings.json, whose servers
// are the "mcp" setting's.
func vscodeSettings(path string) bool { return filepath.Base(path) == "settings.json" }
