package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// ContinueProvider reads Continue's MCP servers: the "mcpServers" list of
// ~/.continue/config.yaml (or $CONTINUE_GLOBAL_DIR/config.yaml) for the
// user, and the block files in a project's .continue/mcpServers/ folder.
//
// It follows Continue's MCP docs (docs.continue.dev, "Model Context
// Protocol") and its config-yaml schema. "mcpServers" is a LIST; each item
// has a "name" (the server's name), then
//
//   - "command", "args", "env", "cwd" for a local server ("type": "stdio"
//     or none);
//   - "url" with "type": "sse" or "streamable-http" (none: try streamable
//     HTTP, then SSE), "requestOptions.headers", and "apiKey", sent as
//     "Authorization: Bearer <apiKey>";
//
// and "connectionTimeout" in milliseconds, our startup timeout. A block
// file is YAML with name, version and schema at its top and the same
// list; Continue also takes JSON files copied from Claude Desktop, Cursor
// or Cline in that folder, whose "mcpServers" is an object by name, so an
// object is read too (with "headers" and "disabled"). Continue's secret
// templates "${{ secrets.NAME }}" and "${{ inputs.NAME }}" become
// "${NAME}", for substitution from the environment; "uses:" items name
// blocks on Continue's hub, which only Continue can fetch, and are
// skipped with a warning. The old config.json and its
// experimental.modelContextProtocolServers are no longer documented and
// are not read.
var ContinueProvider = &Provider{
	Name:      continueName,
	ID:        "continue",
	Locations: continueLocations,
	Parse:     parseContinue,
	Sniff:     sniffContinue,
}

func init() { register(ContinueProvider) }

const continueName = "Continue"

// continueLocations lists the project's block files in name order, then
// the user's config.yaml. Reading the folder is the one look at the disk
// an adapter makes before Parse: the files have no fixed names.
func continueLocations(env Env) []Location {
	var locs []Location
	if env.ProjectDir != "" {
		dir := filepath.Join(env.ProjectDir, ".continue", "mcpServers")
		entries, _ := os.ReadDir(dir) // a missing folder is silence
		for _, de := range entries {
			if !de.IsDir() && extIs(de.Name(), ".yaml", ".yml", ".json") {
				locs = append(locs, Location{Path: filepath.Join(dir, de.Name()), Level: LevelProject})
			}
		}
	}
	if dir := absEnvPath(env, "CONTINUE_GLOBAL_DIR"); dir != "" {
		locs = append(locs, Location{Path: filepath.Join(dir, "config.yaml"), Level: LevelUser})
	} else if env.Home != "" {
		locs = append(locs, Location{Path: filepath.Join(env.Home, ".continue", "config.yaml"), Level: LevelUser})
	}
	return locs
}

var continueServersRE = regexp.MustCompile(`(?m)^mcpServers:[ \t]*(#.*)?\r?$`)

// sniffContinue: YAML in a .continue folder, or a YAML file whose
// top-level mcpServers is a block (a list, in practice; the JSON family
// writes mcpServers as an object in JSON files).
func sniffContinue(path string, data []byte) bool {
	p := filepath.ToSlash(path)
	if strings.Contains("/"+p, "/.continue/") && (extIs(p, ".yaml", ".yml") || strings.Contains(p, "/mcpServers/")) {
		return true
	}
	return extIs(p, ".yaml", ".yml") && continueServersRE.Match(data)
}

func parseContinue(loc Location, data []byte, _ Env) ([]ServerConfig, []*Diagnostic, error) {
	var root *jsonValue
	var lines lineTable
	var err error
	if extIs(loc.Path, ".json", ".jsonc") {
		root, lines, err = readJSONCTree(loc.Path, data)
	} else {
		root, lines, err = readYAMLTree(loc.Path, data)
	}
	if err != nil || root == nil {
		return nil, nil, err
	}
	if root.kind != jsonObject {
		return nil, nil, lines.diag(loc.Path, root.off, "", "", fmt.Sprintf("top level must be a mapping, got %s", yamlKind(root)))
	}
	list := root.member("mcpServers")
	switch {
	case nullish(list):
		return nil, nil, nil
	case list.kind == jsonObject:
		out, warnings := foreignServers(loc, continueName, lines, list, true, decodeContinue)
		return out, warnings, nil
	case list.kind != jsonArray:
		return nil, nil, lines.diag(loc.Path, list.off, "", "mcpServers", fmt.Sprintf("want a list of servers, got %s", yamlKind(list)))
	}
	var out []ServerConfig
	var warnings []*Diagnostic
	first := make(map[string]int)
	for i, item := range list.elems {
		if item.kind == jsonObject && item.member("uses") != nil {
			uses := item.member("uses")
			warnings = append(warnings, lines.diag(loc.Path, item.off, "", fmt.Sprintf("mcpServers[%d].uses", i),
				fmt.Sprintf("%q is a block on Continue's hub, which only Continue can fetch; skipped", clip(uses.str))))
			continue
		}
		name := ""
		if item.kind == jsonObject {
			if n := item.member("name"); n != nil && n.kind != jsonObject && n.kind != jsonArray {
				name = n.str
			}
		}
		c, w, _ := foreignServer(loc, continueName, lines, name, item.off, item, true, decodeContinue)
		warnings = append(warnings, w...)
		switch line, dup := first[name]; {
		case name == "":
			if c.Err == nil {
				c.Err = lines.diag(loc.Path, item.off, "", fmt.Sprintf("mcpServers[%d].name", i), "server has no name")
			}
		case dup:
			c.Err = lines.diag(loc.Path, item.off, name, "name", fmt.Sprintf("server defined twice; the first definition, at line %d, wins", line))
		default:
			first[name] = c.Source.Line
		}
		out = append(out, c)
	}
	return out, warnings, nil
}

func decodeContinue(e *foreignEntry, c *ServerConfig, v *jsonValue) bool {
	continueTemplates(e, v)
	var typ, apiKey *jsonValue
	for _, m := range v.members {
		val := m.val
		if nullish(val) {
			continue
		}
		switch m.key {
		case "type":
			typ = val
		case "command":
			c.Command = e.str(val, m.key, true)
		case "args":
			c.Args = e.strList(val, m.key, true)
		case "env":
			c.Env = e.strMap(val, m.key, c.Env)
		case "cwd":
			c.Cwd = e.str(val, m.key, true)
		case "url":
			c.URL = e.str(val, m.key, true)
		case "headers":
			c.Headers = e.strMap(val, m.key, c.Headers)
		case "requestOptions":
			if h := val.member("headers"); val.kind == jsonObject && !nullish(h) {
				c.Headers = e.strMap(h, "requestOptions.headers", c.Headers)
			}
		case "apiKey":
			apiKey = val
		case "connectionTimeout":
			c.StartupTimeout = e.duration(val, m.key, time.Millisecond)
		case "disabled":
			c.Disabled = e.boolean(val, m.key, false)
		}
	}
	if apiKey != nil {
		if k := e.str(apiKey, "apiKey", true); k != "" {
			if _, set := c.Headers["Authorization"]; !set {
				c.Headers = setKey(c.Headers, "Authorization", "Bearer "+k)
			}
		}
	}
	if typ != nil {
		switch s := e.str(typ, "type", true); strings.ToLower(s) {
		case "stdio":
			c.Type = TransportStdio
		case "sse":
			c.Type = TransportSSE
		case "streamable-http", "http":
			c.Type = TransportHTTP
		case "":
		default:
			e.fail(typ, "type", fmt.Sprintf("unknown type %q (want stdio, sse or streamable-http)", clip(s)))
		}
	} else if c.Command != "" && c.URL == "" {
		c.Type = TransportStdio
	}
	return true
}

// continueSecretRE matches Continue's templates for secrets and block
// inputs that are plain variable names.
var continueSecretRE = regexp.MustCompile(`\$\{\{\s*(?:secrets|inputs)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// continueTemplated are the fields whose strings substitution reads.
var continueTemplated = []string{"command", "args", "env", "cwd", "url", "headers", "apiKey", "requestOptions"}

// continueTemplates rewrites "${{ secrets.NAME }}" to "${NAME}" in the
// entry's strings that substitution reads, in place. Any other
// "${{ … }}" (a hub secret like "${{ secrets.org/block/NAME }}") only
// Continue can resolve: that fails the server rather than send the
// template.
func continueTemplates(e *foreignEntry, v *jsonValue) {
	var walk func(v *jsonValue, field string)
	walk = func(v *jsonValue, field string) {
		switch v.kind {
		case jsonString:
			if !strings.Contains(v.str, "${{") {
				return
			}
			v.str = continueSecretRE.ReplaceAllString(v.str, "$${$1}")
			if i := strings.Index(v.str, "${{"); i >= 0 {
				e.fail(v, field, fmt.Sprintf("Continue template %q can only be resolved by Continue; use ${{ secrets.NAME }} with NAME set in the environment", clip(v.str[i:])))
			}
		case jsonArray:
			for i, el := range v.elems {
				walk(el, fmt.Sprintf("%s[%d]", field, i))
			}
		case jsonObject:
			for _, m := range v.members {
				walk(m.val, field+"."+m.key)
			}
		}
	}
	for _, m := range v.members {
		if slices.Contains(continueTemplated, m.key) {
			walk(m.val, m.key)
		}
	}
}
