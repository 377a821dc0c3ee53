package source

import (
	"path/filepath"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
)

// Gemini CLI, as its MCP server guide (github.com/google-gemini/gemini-cli,
// docs/tools/mcp-server.md) and configuration reference describe it:
// ~/.gemini/settings.json for the user and .gemini/settings.json in a
// project, JSON with comments, servers under "mcpServers". An entry picks
// its transport by key: "command" (stdio, with "args", "env", "cwd"),
// "httpUrl" (streamable HTTP) or "url" (SSE), each remote one with
// "headers"; newer versions also accept "type" next to "url". "timeout" is
// in milliseconds (default 10 minutes); "includeTools" and "excludeTools"
// filter tools (exclude wins), which is our tool filter; "trust": true
// skips every confirmation, which is auto-approve for all tools.
// Gemini resolves $VAR and ${VAR} in every string of its settings
// (packages/cli/src/utils/envVarResolver.ts, resolveEnvVarsInString):
// there is no default syntax, and an unset variable is left as written,
// which switchboard does not send: it is the server's error.
//
// The top-level "mcp" object's "allowed" and "excluded" lists (server
// names Gemini may or may not start), and the version 1 keys they replace,
// "allowMCPServers" and "excludeMCPServers" (still migrated by Gemini:
// MIGRATION_MAP in packages/cli/src/config/settings.ts), are honoured by
// marking the servers they rule out as disabled: the entry still claims
// its name, as a disabled server does. OAuth settings are not read.
var geminiDialect = &dialect{
	urlKeys: []urlKey{{key: "httpUrl", transport: config.TransportHTTP}, {key: "url", transport: config.TransportSSE}},
	cwd:     true,
	timeout: time.Millisecond,
	extra: func(e *entry, key string, v *doc.Value) bool {
		switch key {
		case "includeTools":
			e.c.Tools.Allow = e.strList(v, key, true)
		case "excludeTools":
			e.c.Tools.Deny = e.strList(v, key, true)
		case "trust":
			// Auto-approval has a safe default: a wrong type is a warning.
			if v.Kind != doc.Bool {
				e.wrong(v, key, "true or false", false)
			} else if v.Bool {
				e.c.AutoApprove = []string{"*"}
			}
		default:
			return false
		}
		return true
	},
}

// geminiFormat is Gemini CLI's format.
var geminiFormat = &Provider{
	Name: "Gemini CLI",
	ID:   "gemini",
	Locations: func(env Env) []Location {
		return projectAndUser(env, filepath.Join(".gemini", "settings.json"), env.inHome(".gemini", "settings.json"))
	},
	Parse: parseGemini,
	Sniff: func(path string, data []byte) bool {
		return nameIs(path, "/.gemini/settings.json") || entriesHaveKey(data, "mcpServers", "httpUrl")
	},
}

func parseGemini(loc Location, data []byte, _ Env) ([]Entry, []*config.Diagnostic, error) {
	d, err := parseObject(loc, data, true)
	if err != nil || d == nil {
		return nil, nil, err
	}
	dec := newDecoder(d, "Gemini CLI", loc)
	dec.syntax = geminiSyntax
	obj, err := dec.object(d.Root, "mcpServers", "an object of server configs by name")
	if err != nil {
		return nil, nil, err
	}
	entries := dec.servers(obj, geminiDialect.decode)

	// Which servers Gemini may start: "mcp": {"allowed", "excluded"}, or
	// the version 1 keys it migrates into them, "allowMCPServers" and
	// "excludeMCPServers"; the nested one wins where both are set.
	list := func(field string, v *doc.Value) ([]string, bool) {
		if doc.Nullish(v) {
			return nil, false
		}
		e := &entry{d: dec, c: &config.ServerConfig{}, fields: map[string]int{}}
		names := e.strList(v, field, false)
		dec.warnings = append(dec.warnings, e.warnings...)
		return names, v.Kind == doc.Array
	}
	pick := func(nested, flat string) ([]string, bool) {
		if m := d.Root.Member("mcp"); m != nil && m.Kind == doc.Object {
			if names, ok := list("mcp."+nested, m.Member(nested)); ok {
				return names, true
			}
		}
		return list(flat, d.Root.Member(flat))
	}
	allowed, hasAllowed := pick("allowed", "allowMCPServers")
	excluded, _ := pick("excluded", "excludeMCPServers")
	for i := range entries {
		n := entries[i].Config.Name
		if slices.Contains(excluded, n) || hasAllowed && !slices.Contains(allowed, n) {
			entries[i].Config.Disabled = true
		}
	}
	return entries, dec.warnings, nil
}
