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

// gooseFormat reads the "extensions" of Goose's config.yaml,
// ~/.config/goose/config.yaml ($XDG_CONFIG_HOME/goose). Goose has no
// project-level file.
//
// It follows Goose's configuration docs (block.github.io/goose, "Config
// Files" and "Using Extensions"). Extensions are a map by name, each with
// a "type":
//
//   - stdio: "cmd", "args", "envs" (a map), "env_keys" (names whose values
//     Goose looks up in its secret store or environment; they become
//     "${NAME}" references, which substitution resolves from ours);
//   - streamable_http: "uri", "headers" (and envs/env_keys, which only
//     apply to a process and are ignored here); sse, the same over legacy
//     SSE, which newer Goose releases no longer accept but older files
//     still hold;
//   - builtin, platform and frontend: Goose's own code, skipped silently;
//   - inline_python: Python run by Goose, skipped with a warning.
//
// and "enabled" (false disables), "timeout" in seconds, and
// "available_tools" (the tools to load; empty means all), our allow list.
// "name", "display_name", "description" and "bundled" are ignored.
var gooseFormat = &Provider{
	Name:      gooseName,
	ID:        "goose",
	Locations: gooseLocations,
	Parse:     parseGoose,
	Sniff:     sniffGoose,
}

const gooseName = "Goose"

func gooseLocations(env Env) []Location {
	if dir := env.configHome(); dir != "" {
		return []Location{{Path: filepath.Join(dir, "goose", "config.yaml"), Level: config.LevelUser}}
	}
	return nil
}

var gooseExtensionsRE = regexp.MustCompile(`(?m)^extensions:[ \t]*(#.*)?\r?$`)

func sniffGoose(path string, data []byte) bool {
	return slashSuffix(path, "goose/config.yaml") ||
		extIs(path, ".yaml", ".yml") && gooseExtensionsRE.Match(data)
}

func parseGoose(loc Location, data []byte, _ Env) ([]Entry, []*config.Diagnostic, error) {
	d, err := parseMapping(loc, data)
	if err != nil || d == nil {
		return nil, nil, err
	}
	exts := d.Root.Member("extensions")
	if doc.Nullish(exts) {
		return nil, nil, nil
	}
	if exts.Kind != doc.Object {
		return nil, nil, d.Diag(exts.Off, "", "extensions", fmt.Sprintf("want a mapping of extensions by name, got %s", yamlKind(exts)))
	}
	dec := newDecoder(d, gooseName, loc)
	dec.aliases = [][2]string{{"command", "cmd"}, {"env", "envs"}, {"url", "uri"}}
	dec.syntax = noVariables
	dec.textScalars = true
	return dec.servers(exts, decodeGoose), dec.warnings, nil
}

func decodeGoose(e *entry, v *doc.Value) bool {
	c := e.c
	typ := ""
	if t := v.Member("type"); !doc.Nullish(t) {
		typ = e.str(t, "type")
	}
	switch typ {
	case "builtin", "platform", "frontend":
		e.warnings, e.err = nil, nil
		return false
	case "inline_python":
		e.warnings = []*config.Diagnostic{e.d.doc.Diag(e.keyOff, c.Name, "",
			"an inline_python extension runs inside Goose; skipped")}
		return false
	case "stdio":
		c.Type = config.TransportStdio
	case "sse":
		c.Type = config.TransportSSE
	case "streamable_http":
		c.Type = config.TransportHTTP
	case "":
	default:
		e.fail(v.Member("type"), "type", fmt.Sprintf("unknown extension type %q (want stdio, streamable_http or sse)", clip.Text(typ)))
	}
	var envs, envKeys *doc.Value
	for _, m := range v.Members {
		val := m.Val
		if doc.Nullish(val) {
			continue
		}
		switch m.Key {
		case "cmd":
			c.Command = e.str(val, m.Key)
		case "args":
			c.Args = e.strList(val, m.Key, true)
		case "envs":
			envs = val
		case "env_keys":
			envKeys = val
		case "uri":
			c.URL = e.str(val, m.Key)
		case "headers":
			c.Headers = e.strMap(val, m.Key, c.Headers)
		case "enabled":
			c.Disabled = !e.boolean(val, m.Key, true)
		case "timeout":
			c.Timeout = e.duration(val, m.Key, time.Second)
		case "available_tools":
			c.Tools.Allow = e.strList(val, m.Key, true)
		}
	}
	// Only a process has an environment; Goose writes envs and env_keys
	// (often empty) into remote extensions too.
	if c.Command != "" || c.Type == config.TransportStdio {
		if envs != nil {
			c.Env = e.strMap(envs, "envs", c.Env)
		}
		if envKeys != nil {
			c.Env = e.passThrough(envKeys, "env_keys", "env", "", ref{required: true, hint: "Goose also looks in its keyring; switchboard only in the environment"}, c.Env)
		}
	}
	if typ == "" && c.Command != "" && c.URL == "" {
		c.Type = config.TransportStdio
	}
	return true
}

// yamlKind names a converted YAML value's type as YAML people say it.
func yamlKind(v *doc.Value) string {
	switch v.Kind {
	case doc.Object:
		return "a mapping"
	case doc.Array:
		return "a sequence"
	}
	return v.Kind.String()
}

// parseMapping parses a YAML file whose top level must be a mapping; a
// blank file is nil and no error.
func parseMapping(loc Location, data []byte) (*doc.Doc, error) {
	d, err := doc.ParseYAML(loc.Path, data)
	if err != nil || d.Root == nil {
		return nil, err
	}
	if d.Root.Kind != doc.Object {
		return nil, d.Diag(d.Root.Off, "", "", fmt.Sprintf("top level must be a mapping, got %s", yamlKind(d.Root)))
	}
	return d, nil
}
