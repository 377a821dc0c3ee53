package config

import (
	"bytes"
	"fmt"
	"path/filepath"
	"time"
)

// ZedProvider reads the "context_servers" of Zed's settings, JSONC:
// ~/.config/zed/settings.json ($XDG_CONFIG_HOME/zed; Zed uses ~/.config on
// macOS too) for the user, .zed/settings.json in a project.
//
// It follows Zed's MCP docs (zed.dev/docs/ai/mcp) and its settings types
// (ContextServerSettingsContent, an untagged enum). An entry is one of
//
//   - a custom stdio server: "command" (a string), "args", "env", and
//     "timeout" in seconds for tool calls; older settings wrote the
//     command as an object {"path", "args", "env"}, which is read too;
//   - a remote server: "url", "headers", "timeout";
//   - a server an extension provides ("source": "extension", or
//     "settings" with no command or url). Only Zed can start those (the
//     extension's code computes the command), so they are skipped with a
//     warning naming their line.
//
// "enabled": false disables an entry. "source": "custom" is the older
// spelling of a custom entry and changes nothing; "remote" (run on a
// remote development host) is ignored.
var ZedProvider = &Provider{
	Name:      zedName,
	ID:        "zed",
	Locations: zedLocations,
	Parse:     parseZed,
	Sniff:     sniffZed,
}

func init() { register(ZedProvider) }

const zedName = "Zed"

func zedLocations(env Env) []Location {
	var locs []Location
	if env.ProjectDir != "" {
		locs = append(locs, Location{Path: filepath.Join(env.ProjectDir, ".zed", "settings.json"), Level: LevelProject})
	}
	if dir := userConfigHome(env); dir != "" {
		locs = append(locs, Location{Path: filepath.Join(dir, "zed", "settings.json"), Level: LevelUser})
	}
	return locs
}

// sniffZed: a settings.json under zed/ or .zed/ is Zed's by name; any
// other JSON file is if it has context_servers, a key only Zed uses.
func sniffZed(path string, data []byte) bool {
	if slashSuffix(path, "zed/settings.json") || slashSuffix(path, ".zed/settings.json") {
		return true
	}
	return extIs(path, ".json", ".jsonc") && bytes.Contains(data, []byte(`"context_servers"`))
}

func parseZed(loc Location, data []byte, _ Env) ([]ServerConfig, []*Diagnostic, error) {
	root, lines, err := readJSONCTree(loc.Path, data)
	if err != nil || root == nil {
		return nil, nil, err
	}
	if root.kind != jsonObject {
		return nil, nil, lines.diag(loc.Path, root.off, "", "", fmt.Sprintf("top level must be an object, got %s", root.kind))
	}
	servers := root.member("context_servers")
	if nullish(servers) {
		return nil, nil, nil
	}
	if servers.kind != jsonObject {
		return nil, nil, lines.diag(loc.Path, servers.off, "", "context_servers", fmt.Sprintf("want an object of servers by name, got %s", servers.kind))
	}
	out, warnings := foreignServers(loc, zedName, lines, servers, false, decodeZed)
	return out, warnings, nil
}

func decodeZed(e *foreignEntry, c *ServerConfig, v *jsonValue) bool {
	extension := false
	for _, m := range v.members {
		val := m.val
		if nullish(val) {
			continue
		}
		switch m.key {
		case "source":
			extension = val.kind == jsonString && val.str == "extension"
		case "settings":
			extension = extension || v.member("command") == nil && v.member("url") == nil
		case "command":
			if val.kind == jsonObject {
				decodeZedCommand(e, c, val)
			} else {
				c.Command = e.str(val, m.key, true)
			}
		case "args":
			c.Args = e.strList(val, m.key, true)
		case "env":
			c.Env = e.strMap(val, m.key, c.Env)
		case "url":
			c.URL = e.str(val, m.key, true)
		case "headers":
			c.Headers = e.strMap(val, m.key, c.Headers)
		case "timeout":
			c.Timeout = e.duration(val, m.key, time.Second)
		case "enabled":
			c.Disabled = !e.boolean(val, m.key, true)
		}
	}
	if extension && c.Command == "" && c.URL == "" {
		// Problems with its other fields do not matter any more.
		e.warnings = []*Diagnostic{e.lines.diag(e.path, e.keyOff, c.Name, "",
			"provided by a Zed extension, which only Zed can start; skipped")}
		return false
	}
	if c.Command != "" && c.URL == "" {
		c.Type = TransportStdio
	}
	return true
}

// decodeZedCommand reads the older {"path", "args", "env"} form.
func decodeZedCommand(e *foreignEntry, c *ServerConfig, v *jsonValue) {
	for _, m := range v.members {
		if nullish(m.val) {
			continue
		}
		switch m.key {
		case "path":
			c.Command = e.str(m.val, "command.path", true)
		case "args":
			c.Args = e.strList(m.val, "command.args", true)
		case "env":
			c.Env = e.strMap(m.val, "command.env", c.Env)
		}
	}
}
