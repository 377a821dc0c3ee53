package config

import (
	"path/filepath"
	"slices"
	"time"
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
// String values may name variables as $VAR or ${VAR}.
//
// The top-level "mcp" object's "allowed" and "excluded" lists (server
// names Gemini may or may not start) are honoured by marking the servers
// they rule out as disabled: the entry still claims its name, as a
// disabled server does. OAuth settings are not read.
var geminiDialect = &dialect{
	urlKeys: []urlKey{{key: "httpUrl", transport: TransportHTTP}, {key: "url", transport: TransportSSE}},
	cwd:     true,
	timeout: time.Millisecond,
	extra: func(e *entry, key string, v *jsonValue) bool {
		switch key {
		case "includeTools":
			e.c.Tools.Allow = e.strList(v, key, true)
		case "excludeTools":
			e.c.Tools.Deny = e.strList(v, key, true)
		case "trust":
			if b, ok := e.boolean(v, key, false); ok && b {
				e.c.AutoApprove = []string{"*"}
			}
		default:
			return false
		}
		return true
	},
}

func init() {
	register(&Provider{
		Name: "Gemini CLI",
		ID:   "gemini",
		Locations: func(env Env) []Location {
			return projectAndUser(env, filepath.Join(".gemini", "settings.json"), filepath.Join(env.Home, ".gemini", "settings.json"))
		},
		Parse: parseGemini,
		Sniff: func(path string, data []byte) bool {
			return nameIs(path, "/.gemini/settings.json") || entriesHaveKey(data, "mcpServers", "httpUrl")
		},
	})
}

func parseGemini(loc Location, data []byte, _ Env) ([]ServerConfig, []*Diagnostic, error) {
	const name = "Gemini CLI"
	doc, err := parseJSONDoc(name, loc, data, true)
	if err != nil || doc.root == nil {
		return nil, nil, err
	}
	obj, err := doc.object(doc.root, "mcpServers", "server configs by name")
	if err != nil {
		return nil, nil, err
	}
	servers := doc.decodeServers(obj, geminiDialect.decode)
	rewriteAll(servers, bareVariables)

	// "mcp": {"allowed": [...], "excluded": [...]}
	if m := doc.root.member("mcp"); m != nil && m.kind == jsonObject {
		list := func(key string) ([]string, bool) {
			v := m.member(key)
			if v == nil || v.kind == jsonNull {
				return nil, false
			}
			e := &entry{doc: doc, c: &ServerConfig{}}
			names := e.strList(v, "mcp."+key, false)
			return names, v.kind == jsonArray
		}
		allowed, hasAllowed := list("allowed")
		excluded, _ := list("excluded")
		for i := range servers {
			n := servers[i].Name
			if slices.Contains(excluded, n) || hasAllowed && !slices.Contains(allowed, n) {
				servers[i].Disabled = true
			}
		}
	}
	return servers, doc.warnings, nil
}
