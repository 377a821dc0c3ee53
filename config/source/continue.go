package source

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
	"github.com/switchboard-mcp/switchboard/internal/clip"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// continueFormat reads Continue's MCP servers: the "mcpServers" list of
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
// object is read too (with "headers" and "disabled").
//
// Continue renders its templates in the file's text before reading it
// (packages/config-yaml/src/load/unroll.ts, fillTemplateVariables):
// "${{ secrets.NAME }}" and "${{ inputs.NAME }}" are taken from the
// environment here (Continue also reads its .env files); any other
// template only Continue can resolve, and fails the server. Nothing else
// is expanded: "${VAR}" in an argument reaches the server as written.
// "uses:" items name
// blocks on Continue's hub, which only Continue can fetch, and are
// skipped with a warning. The old config.json and its
// experimental.modelContextProtocolServers are no longer documented and
// are not read.
var continueFormat = &Provider{
	Name:      continueName,
	ID:        "continue",
	Locations: continueLocations,
	Parse:     parseContinue,
	Sniff:     sniffContinue,
}

const continueName = "Continue"

// continueLocations lists the project's block files in name order, then
// the user's config.yaml. Reading the folder is the one look at the disk
// an adapter makes before Parse: the files have no fixed names. The
// folder comes from a repository, so it is listed as carefully as files
// are read (internal/safefile): a named pipe, a link to /proc or a
// folder of thousands is the folder's error, and config.yaml is still
// read.
func continueLocations(env Env) []Location {
	var locs []Location
	if env.ProjectDir != "" {
		dir := filepath.Join(env.ProjectDir, ".continue", "mcpServers")
		entries, err := safefile.ReadDirLimited(dir, safefile.MaxDirEntries)
		if err != nil && !errors.Is(err, fs.ErrNotExist) { // a missing folder is silence
			locs = append(locs, Location{Path: dir, Level: config.LevelProject, Err: err})
		}
		for _, de := range entries {
			if !de.IsDir() && extIs(de.Name(), ".yaml", ".yml", ".json") {
				locs = append(locs, Location{Path: filepath.Join(dir, de.Name()), Level: config.LevelProject})
			}
		}
	}
	if dir := env.absEnv("CONTINUE_GLOBAL_DIR"); dir != "" {
		locs = append(locs, Location{Path: filepath.Join(dir, "config.yaml"), Level: config.LevelUser})
	} else if env.Home != "" {
		locs = append(locs, Location{Path: filepath.Join(env.Home, ".continue", "config.yaml"), Level: config.LevelUser})
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

func parseContinue(loc Location, data []byte, _ Env) ([]Entry, []*config.Diagnostic, error) {
	var d *doc.Doc
	var err error
	if extIs(loc.Path, ".json", ".jsonc") {
		d, err = doc.ParseJSON(loc.Path, data, true)
		if err == nil && d.Root != nil && d.Root.Kind != doc.Object {
			err = d.Diag(d.Root.Off, "", "", fmt.Sprintf("top level must be a mapping, got %s", yamlKind(d.Root)))
		}
		if err != nil || d.Root == nil {
			return nil, nil, err
		}
	} else if d, err = parseMapping(loc, data); err != nil || d == nil {
		return nil, nil, err
	}
	dec := newDecoder(d, continueName, loc)
	dec.aliases = [][2]string{{"headers", "requestOptions.headers"}}
	dec.syntax = continueSyntax
	// Continue reads its block files as YAML, and copied JSON files
	// through the same loader: a bare 8080 is text in both.
	dec.textScalars = true
	list := d.Root.Member("mcpServers")
	switch {
	case doc.Nullish(list):
		return nil, nil, nil
	case list.Kind == doc.Object:
		return dec.servers(list, decodeContinue), dec.warnings, nil
	case list.Kind != doc.Array:
		return nil, nil, d.Diag(list.Off, "", "mcpServers", fmt.Sprintf("want a list of servers, got %s", yamlKind(list)))
	}
	var out []Entry
	first := make(map[string]int)
	for i, item := range list.Elems {
		if item.Kind == doc.Object && item.Member("uses") != nil {
			uses := item.Member("uses")
			dec.warnings = append(dec.warnings, d.Diag(item.Off, "", fmt.Sprintf("mcpServers[%d].uses", i),
				fmt.Sprintf("%q is a block on Continue's hub, which only Continue can fetch; skipped", clip.Text(uses.Str))))
			continue
		}
		name := ""
		if item.Kind == doc.Object {
			if n := item.Member("name"); n != nil && n.Kind != doc.Object && n.Kind != doc.Array {
				name = n.Str
			}
		}
		en, _ := dec.server(name, item.Off, item, decodeContinue)
		c := &en.Config
		switch line, dup := first[name]; {
		case name == "":
			if c.Err == nil {
				c.Err = d.Diag(item.Off, "", fmt.Sprintf("mcpServers[%d].name", i), "server has no name")
			}
		case dup:
			c.Err = d.Diag(item.Off, name, "name", fmt.Sprintf("server defined twice; the first definition, at line %d, wins", line))
		default:
			first[name] = c.Source.Line
		}
		out = append(out, en)
	}
	return out, dec.warnings, nil
}

func decodeContinue(e *entry, v *doc.Value) bool {
	c := e.c
	var typ, apiKey *doc.Value
	for _, m := range v.Members {
		val := m.Val
		if doc.Nullish(val) {
			continue
		}
		if e.canonical(m.Key, val) {
			continue
		}
		switch m.Key {
		case "type":
			typ = val
		case "requestOptions":
			if h := val.Member("headers"); val.Kind == doc.Object && !doc.Nullish(h) {
				c.Headers = e.strMap(h, "requestOptions.headers", c.Headers)
			}
		case "apiKey":
			apiKey = val
		case "connectionTimeout":
			c.StartupTimeout = e.duration(val, m.Key, time.Millisecond)
		case "disabled":
			c.Disabled = e.boolean(val, m.Key, false)
		}
	}
	if apiKey != nil {
		if k := e.str(apiKey, "apiKey"); k != "" {
			if _, set := c.Headers["Authorization"]; !set {
				c.Headers = setKey(c.Headers, "Authorization", "Bearer "+k)
				e.at("headers.Authorization", apiKey)
			}
		}
	}
	if typ != nil {
		switch s := e.str(typ, "type"); strings.ToLower(s) {
		case "stdio":
			c.Type = config.TransportStdio
		case "sse":
			c.Type = config.TransportSSE
		case "streamable-http", "http":
			c.Type = config.TransportHTTP
		case "":
		default:
			e.fail(typ, "type", fmt.Sprintf("unknown type %q (want stdio, sse or streamable-http)", clip.Text(s)))
		}
	} else if c.Command != "" && c.URL == "" {
		c.Type = config.TransportStdio
	}
	return true
}
