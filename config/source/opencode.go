package source

import (
	"bytes"
	"fmt"
	"path/filepath"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// opencodeFormat reads opencode's config, JSONC: opencode.jsonc or
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
//     HTTP first and falls back to SSE, which is our config.TransportAuto;
//
// and "enabled" (false disables; V2 spells it "disabled": true) and
// "timeout", milliseconds for fetching the tool list, which bounds the
// connect and so is our startup timeout; "oauth" is ignored.
//
// opencode substitutes its file's text before parsing it
// (packages/opencode/src/config/variable.ts, ConfigVariable.substitute):
// "{env:VAR}" becomes the variable's value, or "" when it is unset or
// empty, and "{file:path}" a file's contents, which switchboard does not
// read (such a server fails and says so). "${VAR}" is not opencode's and
// stays as written.
var opencodeFormat = &Provider{
	Name:      opencodeName,
	ID:        "opencode",
	Locations: opencodeLocations,
	Parse:     parseOpencode,
	Sniff:     sniffOpencode,
}

const opencodeName = "opencode"

// opencodeLocations lists, within a directory, opencode.jsonc before
// opencode.json, and the project's .opencode/ before its root: opencode
// merges .opencode/ over the root, so its definitions win there too.
func opencodeLocations(env Env) []Location {
	var locs []Location
	add := func(dir string, level config.Level) {
		for _, name := range []string{"opencode.jsonc", "opencode.json"} {
			locs = append(locs, Location{Path: filepath.Join(dir, name), Level: level})
		}
	}
	if env.ProjectDir != "" {
		add(filepath.Join(env.ProjectDir, ".opencode"), config.LevelProject)
		add(env.ProjectDir, config.LevelProject)
	}
	if p := env.absEnv("OPENCODE_CONFIG"); p != "" {
		locs = append(locs, Location{Path: p, Level: config.LevelUser})
	}
	if dir := env.configHome(); dir != "" {
		add(filepath.Join(dir, "opencode"), config.LevelUser)
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

func parseOpencode(loc Location, data []byte, _ Env) ([]Entry, []*config.Diagnostic, error) {
	d, err := parseObject(loc, data, true)
	if err != nil || d == nil {
		return nil, nil, err
	}
	mcp := d.Root.Member("mcp")
	if doc.Nullish(mcp) {
		return nil, nil, nil
	}
	if mcp.Kind != doc.Object {
		return nil, nil, d.Diag(mcp.Off, "", "mcp", fmt.Sprintf("want an object of servers by name, got %s", mcp.Kind))
	}
	// V2 keeps servers under mcp.servers; V1 puts them right under mcp,
	// where a V1 server named "servers" would have a "type".
	servers := mcp
	if v2 := mcp.Member("servers"); v2 != nil && v2.Kind == doc.Object && v2.Member("type") == nil {
		servers = &doc.Value{Kind: doc.Object, Off: mcp.Off}
		for _, m := range mcp.Members {
			if m.Key != "servers" {
				servers.Members = append(servers.Members, m)
			}
		}
		servers.Members = append(servers.Members, v2.Members...)
	}
	dec := newDecoder(d, opencodeName, loc)
	dec.aliases = [][2]string{{"env", "environment"}}
	dec.syntax = opencodeSyntax
	return dec.servers(servers, decodeOpencode), dec.warnings, nil
}

func decodeOpencode(e *entry, v *doc.Value) bool {
	c := e.c
	var typ *doc.Value
	for _, m := range v.Members {
		val := m.Val
		if doc.Nullish(val) {
			continue
		}
		switch m.Key {
		case "type":
			typ = val
		case "command":
			if val.Kind == doc.String {
				e.fail(val, m.Key, `want an array of the program and its arguments, like ["npx", "-y", "pkg"], got a string`)
				break
			}
			if cmd := e.strList(val, m.Key, true); len(cmd) > 0 {
				c.Command, c.Args = cmd[0], cmd[1:]
				// The program is command[0] and its arguments the rest.
				if len(val.Elems) > 0 {
					e.at("command", val.Elems[0])
				}
				for i := 1; i < len(val.Elems); i++ {
					e.at(fmt.Sprintf("args[%d]", i-1), val.Elems[i])
				}
				if len(c.Args) == 0 {
					c.Args = nil
				}
			} else if e.err == nil {
				e.fail(val, m.Key, "command is empty (want the program and its arguments)")
			}
		case "environment":
			c.Env = e.strMap(val, m.Key, c.Env)
		case "cwd":
			c.Cwd = e.str(val, m.Key)
		case "url":
			c.URL = e.str(val, m.Key)
		case "headers":
			c.Headers = e.strMap(val, m.Key, c.Headers)
		case "enabled":
			c.Disabled = c.Disabled || !e.boolean(val, m.Key, true)
		case "disabled":
			c.Disabled = c.Disabled || e.boolean(val, m.Key, false)
		case "timeout":
			c.StartupTimeout = e.duration(val, m.Key, time.Millisecond)
		}
	}
	switch {
	case typ != nil:
		switch s := e.str(typ, "type"); s {
		case "local":
			c.Type = config.TransportStdio
		case "remote":
			c.Type = config.TransportAuto
		case "":
		default:
			e.fail(typ, "type", fmt.Sprintf("unknown type %q (opencode wants \"local\" or \"remote\")", clip.Text(s)))
		}
	case c.Command != "" && c.URL == "":
		c.Type = config.TransportStdio
	}
	return true
}
