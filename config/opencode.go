package config

import (
	"bytes"
	"fmt"
	"path/filepath"
	"time"
)

// OpencodeProvider reads opencode's config, JSONC: opencode.jsonc or
// opencode.json in ~/.config/opencode ($XDG_CONFIG_HOME/opencode) for the
// user, or the file $OPENCODE_CONFIG names; in a project, the same names at
// its root and in .opencode/.
//
// It follows opencode's MCP servers docs (opencode.ai/docs/mcp-servers)
// and its V2 docs. Servers are under "mcp" by name (V2 also accepts them
// under "mcp.servers"):
//
//   - "type": "local" with "command" an ARRAY, the program and its
//     arguments (["npx", "-y", "pkg"]), "environment" (a map), "cwd";
//   - "type": "remote" with "url" and "headers"; opencode tries streamable
//     HTTP first and falls back to SSE, which is our TransportAuto;
//
// and "enabled" (false disables; V2 spells it "disabled": true) and
// "timeout", milliseconds for fetching the tool list, which bounds the
// connect and so is our startup timeout. opencode's "{env:VAR}" references
// are left as they are, for discovery's substitution; "oauth" is ignored.
var OpencodeProvider = &Provider{
	Name:      opencodeName,
	ID:        "opencode",
	Locations: opencodeLocations,
	Parse:     parseOpencode,
	Sniff:     sniffOpencode,
}

func init() { register(OpencodeProvider) }

const opencodeName = "opencode"

// opencodeLocations lists, within a directory, opencode.jsonc before
// opencode.json, and the project's .opencode/ before its root: opencode
// merges .opencode/ over the root, so its definitions win there too.
func opencodeLocations(env Env) []Location {
	var locs []Location
	add := func(dir string, level Level) {
		for _, name := range []string{"opencode.jsonc", "opencode.json"} {
			locs = append(locs, Location{Path: filepath.Join(dir, name), Level: level})
		}
	}
	if env.ProjectDir != "" {
		add(filepath.Join(env.ProjectDir, ".opencode"), LevelProject)
		add(env.ProjectDir, LevelProject)
	}
	if p := absEnvPath(env, "OPENCODE_CONFIG"); p != "" {
		locs = append(locs, Location{Path: p, Level: LevelUser})
	}
	if dir := userConfigHome(env); dir != "" {
		add(filepath.Join(dir, "opencode"), LevelUser)
	}
	return locs
}

func sniffOpencode(path string, data []byte) bool {
	switch filepath.Base(path) {
	case "opencode.json", "opencode.jsonc":
		return true
	}
	return bytes.Contains(data, []byte(`"https://opencode.ai/config.json"`))
}

func parseOpencode(loc Location, data []byte, _ Env) ([]ServerConfig, []*Diagnostic, error) {
	root, lines, err := readJSONCTree(loc.Path, data)
	if err != nil || root == nil {
		return nil, nil, err
	}
	if root.kind != jsonObject {
		return nil, nil, lines.diag(loc.Path, root.off, "", "", fmt.Sprintf("top level must be an object, got %s", root.kind))
	}
	mcp := root.member("mcp")
	if nullish(mcp) {
		return nil, nil, nil
	}
	if mcp.kind != jsonObject {
		return nil, nil, lines.diag(loc.Path, mcp.off, "", "mcp", fmt.Sprintf("want an object of servers by name, got %s", mcp.kind))
	}
	// V2 keeps servers under mcp.servers; V1 puts them right under mcp,
	// where a V1 server named "servers" would have a "type".
	servers := mcp
	if v2 := mcp.member("servers"); v2 != nil && v2.kind == jsonObject && v2.member("type") == nil {
		servers = &jsonValue{kind: jsonObject, off: mcp.off}
		for _, m := range mcp.members {
			if m.key != "servers" {
				servers.members = append(servers.members, m)
			}
		}
		servers.members = append(servers.members, v2.members...)
	}
	out, warnings := foreignServers(loc, opencodeName, lines, servers, false, decodeOpencode)
	return out, warnings, nil
}

func decodeOpencode(e *foreignEntry, c *ServerConfig, v *jsonValue) bool {
	var typ *jsonValue
	for _, m := range v.members {
		val := m.val
		if nullish(val) {
			continue
		}
		switch m.key {
		case "type":
			typ = val
		case "command":
			if val.kind == jsonString {
				e.fail(val, m.key, `want an array of the program and its arguments, like ["npx", "-y", "pkg"], got a string`)
				break
			}
			if cmd := e.strList(val, m.key, true); len(cmd) > 0 {
				c.Command, c.Args = cmd[0], cmd[1:]
				if len(c.Args) == 0 {
					c.Args = nil
				}
			} else if e.err == nil {
				e.fail(val, m.key, "command is empty (want the program and its arguments)")
			}
		case "environment":
			c.Env = e.strMap(val, m.key, c.Env)
		case "cwd":
			c.Cwd = e.str(val, m.key, true)
		case "url":
			c.URL = e.str(val, m.key, true)
		case "headers":
			c.Headers = e.strMap(val, m.key, c.Headers)
		case "enabled":
			c.Disabled = c.Disabled || !e.boolean(val, m.key, true)
		case "disabled":
			c.Disabled = c.Disabled || e.boolean(val, m.key, false)
		case "timeout":
			c.StartupTimeout = e.duration(val, m.key, time.Millisecond)
		}
	}
	switch {
	case typ != nil:
		switch s := e.str(typ, "type", true); s {
		case "local":
			c.Type = TransportStdio
		case "remote":
			c.Type = TransportAuto
		case "":
		default:
			e.fail(typ, "type", fmt.Sprintf("unknown type %q (opencode wants \"local\" or \"remote\")", clip(s)))
		}
	case c.Command != "" && c.URL == "":
		c.Type = TransportStdio
	}
	return true
}
