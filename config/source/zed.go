package source

import (
	"bytes"
	"fmt"
	"path/filepath"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
)

// zedFormat reads the "context_servers" of Zed's settings, JSONC:
// ~/.config/zed/settings.json ($XDG_CONFIG_HOME/zed; Zed uses ~/.config on
// macOS too) for the user, .zed/settings.json in a project.
//
// It follows Zed's MCP docs (zed.dev/docs/ai/mcp) and its settings types
// (ContextServerSettingsContent, an untagged enum). An entry is one of
//
//   - a custom stdio server: "command" (a string), "args", "env", and
//     "timeout" in seconds for tool calls; older settings wrote the
//     command as an object {"path", "args", "env"}, which Zed still
//     rewrites into this shape on load (its migrator's m_2025_06_27
//     flatten_context_server_command), so it is read too;
//   - a remote server: "url", "headers", "timeout";
//   - a server an extension provides ("source": "extension", or
//     "settings" with no command or url). Only Zed can start those (the
//     extension's code computes the command), so they are skipped with a
//     warning naming their line.
//
// Zed expands no variables in these settings: a "${TOKEN}" in a header is
// sent as written (zed-industries/zed#60459), so it is read as written.
//
// "enabled": false disables an entry. "source": "custom" is the older
// spelling of a custom entry and changes nothing; "remote" (run on a
// remote development host) is ignored.
var zedFormat = &Provider{
	Name:      zedName,
	ID:        "zed",
	Locations: zedLocations,
	Parse:     parseZed,
	Sniff:     sniffZed,
}

const zedName = "Zed"

func zedLocations(env Env) []Location {
	var locs []Location
	if env.ProjectDir != "" {
		locs = append(locs, Location{Path: filepath.Join(env.ProjectDir, ".zed", "settings.json"), Level: config.LevelProject})
	}
	if dir := env.configHome(); dir != "" {
		locs = append(locs, Location{Path: filepath.Join(dir, "zed", "settings.json"), Level: config.LevelUser})
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

func parseZed(loc Location, data []byte, _ Env) ([]Entry, []*config.Diagnostic, error) {
	d, err := parseObject(loc, data, true)
	if err != nil || d == nil {
		return nil, nil, err
	}
	servers := d.Root.Member("context_servers")
	if doc.Nullish(servers) {
		return nil, nil, nil
	}
	if servers.Kind != doc.Object {
		return nil, nil, d.Diag(servers.Off, "", "context_servers", fmt.Sprintf("want an object of servers by name, got %s", servers.Kind))
	}
	dec := newDecoder(d, zedName, loc)
	dec.aliases = [][2]string{{"command", "command.path"}, {"args", "command.args"}, {"env", "command.env"}}
	dec.syntax = noVariables
	return dec.servers(servers, decodeZed), dec.warnings, nil
}

func decodeZed(e *entry, v *doc.Value) bool {
	c := e.c
	extension := false
	for _, m := range v.Members {
		val := m.Val
		if doc.Nullish(val) {
			continue
		}
		switch m.Key {
		case "source":
			extension = val.Kind == doc.String && val.Str == "extension"
		case "settings":
			extension = extension || v.Member("command") == nil && v.Member("url") == nil
		case "command":
			if val.Kind == doc.Object {
				decodeZedCommand(e, c, val)
			} else {
				c.Command = e.str(val, m.Key)
			}
		case "args":
			c.Args = e.strList(val, m.Key, true)
		case "env":
			c.Env = e.strMap(val, m.Key, c.Env)
		case "url":
			c.URL = e.str(val, m.Key)
		case "headers":
			c.Headers = e.strMap(val, m.Key, c.Headers)
		case "timeout":
			c.Timeout = e.duration(val, m.Key, time.Second)
		case "enabled":
			c.Disabled = !e.boolean(val, m.Key, true)
		}
	}
	if extension && c.Command == "" && c.URL == "" {
		// Problems with its other fields do not matter any more.
		e.warnings = []*config.Diagnostic{e.d.doc.Diag(e.keyOff, c.Name, "",
			"provided by a Zed extension, which only Zed can start; skipped")}
		return false
	}
	if c.Command != "" && c.URL == "" {
		c.Type = config.TransportStdio
	}
	return true
}

// decodeZedCommand reads the older {"path", "args", "env"} form.
func decodeZedCommand(e *entry, c *config.ServerConfig, v *doc.Value) {
	for _, m := range v.Members {
		if doc.Nullish(m.Val) {
			continue
		}
		switch m.Key {
		case "path":
			c.Command = e.str(m.Val, "command.path")
		case "args":
			c.Args = e.strList(m.Val, "command.args", true)
		case "env":
			c.Env = e.strMap(m.Val, "command.env", c.Env)
		}
	}
}
