package source

import (
	"fmt"
	"path/filepath"
	"regexp"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// codexFormat reads OpenAI Codex's config.toml: ~/.codex/config.toml (or
// $CODEX_HOME/config.toml) for the user, .codex/config.toml in a project.
//
// It follows the Codex MCP docs (developers.openai.com/codex/mcp) and the
// config types in codex-rs (RawMcpServerConfig). Each server is a table
// [mcp_servers.<name>] with either
//
//   - command, args, env (a table), env_vars (names of variables to pass
//     through from the environment), cwd: a stdio server; or
//   - url, http_headers, env_http_headers (header → variable name),
//     bearer_token_env_var (→ "Authorization: Bearer ${VAR}"): a
//     streamable HTTP server;
//
// and the switches startup_timeout_sec (or the older startup_timeout_ms),
// tool_timeout_sec, enabled, enabled_tools and disabled_tools (→ the tool
// filter's allow and deny lists). Codex expands no references in values:
// it takes variables by name instead, each by its rule, which Substitute
// follows (the values show "${VAR…}"): env_vars are forwarded only when
// set, and env set explicitly wins; an env_http_headers header is sent
// when its variable is set and not empty, else the http_headers value of
// that name if there is one, else not at all; a missing bearer token
// variable is an error. An inline bearer_token is rejected, as Codex does.
// Unknown fields (required, scopes, oauth_resource, …) are ignored.
var codexFormat = &Provider{
	Name:      codexName,
	ID:        "codex",
	Locations: codexLocations,
	Parse:     parseCodex,
	Sniff:     sniffCodex,
}

const codexName = "Codex"

func codexLocations(env Env) []Location {
	var locs []Location
	if env.ProjectDir != "" {
		locs = append(locs, Location{Path: filepath.Join(env.ProjectDir, ".codex", "config.toml"), Level: config.LevelProject})
	}
	if dir := env.absEnv("CODEX_HOME"); dir != "" {
		locs = append(locs, Location{Path: filepath.Join(dir, "config.toml"), Level: config.LevelUser})
	} else if env.Home != "" {
		locs = append(locs, Location{Path: filepath.Join(env.Home, ".codex", "config.toml"), Level: config.LevelUser})
	}
	return locs
}

var codexServersRE = regexp.MustCompile(`(?m)^[ \t]*(\[[ \t]*mcp_servers\b|mcp_servers[ \t]*[.=])`)

// sniffCodex: Codex is the only tool here whose config is TOML.
func sniffCodex(path string, data []byte) bool {
	return extIs(path, ".toml") || codexServersRE.Match(data)
}

func parseCodex(loc Location, data []byte, _ Env) ([]Entry, []*config.Diagnostic, error) {
	d, err := doc.ParseTOML(loc.Path, data)
	if err != nil || d.Root == nil {
		return nil, nil, err
	}
	servers := d.Root.Member("mcp_servers")
	if doc.Nullish(servers) {
		return nil, nil, nil
	}
	if servers.Kind != doc.Object {
		return nil, nil, d.Diag(servers.Off, "", "mcp_servers", fmt.Sprintf("want a table of servers by name, got %s", servers.Kind))
	}
	dec := newDecoder(d, codexName, loc)
	dec.aliases = [][2]string{{"headers", "http_headers"}}
	dec.syntax = noVariables
	return dec.servers(servers, decodeCodex), dec.warnings, nil
}

func decodeCodex(e *entry, v *doc.Value) bool {
	c := e.c
	var startupMs, bearer, envHeaders, envVars *doc.Value
	haveStartupSec := false
	for _, m := range v.Members {
		val := m.Val
		if doc.Nullish(val) {
			continue
		}
		// Codex has no "headers": its http_headers are read below.
		if m.Key != "headers" && e.canonical(m.Key, val) {
			continue
		}
		switch m.Key {
		case "env_vars":
			envVars = val
		case "http_headers":
			c.Headers = e.strMap(val, m.Key, c.Headers)
		case "env_http_headers":
			envHeaders = val
		case "bearer_token_env_var":
			bearer = val
		case "bearer_token":
			e.fail(val, m.Key, "an inline bearer_token is not supported (Codex rejects it too); put the token in an environment variable and name it in bearer_token_env_var")
		case "startup_timeout_sec":
			c.StartupTimeout = e.duration(val, m.Key, time.Second)
			haveStartupSec = true
		case "startup_timeout_ms":
			startupMs = val
		case "tool_timeout_sec":
			c.Timeout = e.duration(val, m.Key, time.Second)
		case "enabled":
			c.Disabled = !e.boolean(val, m.Key, true)
		case "enabled_tools":
			c.Tools.Allow = e.strList(val, m.Key, true)
		case "disabled_tools":
			c.Tools.Deny = e.strList(val, m.Key, true)
		}
	}
	// These add to the maps above, whatever their order in the file. As
	// in Codex, env set explicitly wins over env_vars, which are
	// forwarded only when set; a header from env_http_headers is sent
	// when its variable is set and not empty, else the http_headers value
	// if there is one, else not at all; a missing bearer token variable
	// is an error. Each is shown as the reference it stands for.
	if envVars != nil {
		c.Env = e.passThrough(envVars, "env_vars", "env", ":-", ref{}, c.Env)
	}
	if envHeaders != nil {
		if envHeaders.Kind != doc.Object {
			e.wrong(envHeaders, "env_http_headers", "a table of header names to variable names", true)
		}
		for _, m := range envHeaders.Members {
			f := "env_http_headers." + m.Key
			name, ok := e.text(m.Val)
			switch {
			case !ok:
				e.wrong(m.Val, f, "a variable name", true)
			case !config.IsVariableName(name):
				e.fail(m.Val, f, fmt.Sprintf("%q is not an environment variable name", clip.Text(name)))
			default:
				r := ref{emptyIsUnset: true}
				if static, set := c.Headers[m.Key]; set {
					r.fallback = &static
				}
				c.Headers = setKey(c.Headers, m.Key, "${"+name+":-"+c.Headers[m.Key]+"}")
				e.byName("headers."+m.Key, m.Val, r, name)
			}
		}
	}
	if bearer != nil {
		if name := e.str(bearer, "bearer_token_env_var"); name != "" {
			if !config.IsVariableName(name) {
				e.fail(bearer, "bearer_token_env_var", fmt.Sprintf("%q is not an environment variable name", clip.Text(name)))
			} else {
				c.Headers = setKey(c.Headers, "Authorization", "Bearer ${"+name+"}")
				e.byName("headers.Authorization", bearer, ref{prefix: "Bearer ", emptyIsUnset: true, required: true}, name)
			}
		}
	}
	if startupMs != nil && !haveStartupSec {
		c.StartupTimeout = e.duration(startupMs, "startup_timeout_ms", time.Millisecond)
	}
	switch {
	case c.Command != "" && c.URL == "":
		c.Type = config.TransportStdio
	case c.URL != "" && c.Command == "":
		c.Type = config.TransportHTTP
	}
	return true
}

// tomlDateTime is the kind of a TOML date or time in the tree: JSON has
// none, and no Codex field wants one.
const tomlDateTime = doc.Object + 1
