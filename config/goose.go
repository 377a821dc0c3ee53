package config

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"
)

// GooseProvider reads the "extensions" of Goose's config.yaml,
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
var GooseProvider = &Provider{
	Name:      gooseName,
	ID:        "goose",
	Locations: gooseLocations,
	Parse:     parseGoose,
	Sniff:     sniffGoose,
}

func init() { register(GooseProvider) }

const gooseName = "Goose"

func gooseLocations(env Env) []Location {
	if dir := userConfigHome(env); dir != "" {
		return []Location{{Path: filepath.Join(dir, "goose", "config.yaml"), Level: LevelUser}}
	}
	return nil
}

var gooseExtensionsRE = regexp.MustCompile(`(?m)^extensions:[ \t]*(#.*)?\r?$`)

func sniffGoose(path string, data []byte) bool {
	return slashSuffix(path, "goose/config.yaml") ||
		extIs(path, ".yaml", ".yml") && gooseExtensionsRE.Match(data)
}

func parseGoose(loc Location, data []byte, _ Env) ([]ServerConfig, []*Diagnostic, error) {
	root, lines, err := readYAMLTree(loc.Path, data)
	if err != nil || root == nil {
		return nil, nil, err
	}
	if root.kind != jsonObject {
		return nil, nil, lines.diag(loc.Path, root.off, "", "", fmt.Sprintf("top level must be a mapping, got %s", yamlKind(root)))
	}
	exts := root.member("extensions")
	if nullish(exts) {
		return nil, nil, nil
	}
	if exts.kind != jsonObject {
		return nil, nil, lines.diag(loc.Path, exts.off, "", "extensions", fmt.Sprintf("want a mapping of extensions by name, got %s", yamlKind(exts)))
	}
	out, warnings := foreignServers(loc, gooseName, lines, exts, true, decodeGoose)
	return out, warnings, nil
}

func decodeGoose(e *foreignEntry, c *ServerConfig, v *jsonValue) bool {
	typ := ""
	if t := v.member("type"); !nullish(t) {
		typ = e.str(t, "type", true)
	}
	switch typ {
	case "builtin", "platform", "frontend":
		e.warnings, e.err = nil, nil
		return false
	case "inline_python":
		e.warnings = []*Diagnostic{e.lines.diag(e.path, e.keyOff, c.Name, "",
			"an inline_python extension runs inside Goose; skipped")}
		return false
	case "stdio":
		c.Type = TransportStdio
	case "sse":
		c.Type = TransportSSE
	case "streamable_http":
		c.Type = TransportHTTP
	case "":
	default:
		e.fail(v.member("type"), "type", fmt.Sprintf("unknown extension type %q (want stdio, streamable_http or sse)", clip(typ)))
	}
	var envs, envKeys *jsonValue
	for _, m := range v.members {
		val := m.val
		if nullish(val) {
			continue
		}
		switch m.key {
		case "cmd":
			c.Command = e.str(val, m.key, true)
		case "args":
			c.Args = e.strList(val, m.key, true)
		case "envs":
			envs = val
		case "env_keys":
			envKeys = val
		case "uri":
			c.URL = e.str(val, m.key, true)
		case "headers":
			c.Headers = e.strMap(val, m.key, c.Headers)
		case "enabled":
			c.Disabled = !e.boolean(val, m.key, true)
		case "timeout":
			c.Timeout = e.duration(val, m.key, time.Second)
		case "available_tools":
			c.Tools.Allow = e.strList(val, m.key, true)
		}
	}
	// Only a process has an environment; Goose writes envs and env_keys
	// (often empty) into remote extensions too.
	if c.Command != "" || c.Type == TransportStdio {
		if envs != nil {
			c.Env = e.strMap(envs, "envs", c.Env)
		}
		if envKeys != nil {
			c.Env = e.passThrough(envKeys, "env_keys", "", c.Env)
		}
	}
	if typ == "" && c.Command != "" && c.URL == "" {
		c.Type = TransportStdio
	}
	return true
}

// yamlKind names a converted YAML value's type as YAML people say it.
func yamlKind(v *jsonValue) string {
	switch v.kind {
	case jsonObject:
		return "a mapping"
	case jsonArray:
		return "a sequence"
	}
	return foreignKind(v)
}

// maxYAMLNodes bounds the tree built from a YAML document. Aliases let a
// few lines stand for exponentially many nodes ("billion laughs"), and
// project files come from repositories someone else wrote.
const maxYAMLNodes = 100_000

// readYAMLTree parses the first document of a YAML file into the
// positioned tree the other adapters use. A blank file is a nil root.
// Aliases are expanded and "<<" merge keys applied; tags decide scalar
// kinds, and every scalar keeps its text in str (see foreignEntry's
// textScalars).
//
// go.yaml.in/yaml/v4 earns its place over gopkg.in/yaml.v3 and its
// maintained fork go.yaml.in/yaml/v3 (both frozen: security fixes only):
// its Node API gives every node's line and column like v3's, and its
// syntax errors (*yaml.LoadError) carry a column too, where v3 reports
// only "yaml: line N".
func readYAMLTree(path string, data []byte) (*jsonValue, lineTable, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	lines := newLineTable(data)
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		d := &Diagnostic{Path: path, Line: 1, Column: 1, Message: strings.TrimPrefix(err.Error(), "yaml: ")}
		var le *yaml.LoadError
		if errors.As(err, &le) && le.Mark.Line > 0 {
			d.Line, d.Column = lines.pos(yamlOffset(lines, data, le.Mark.Line, le.Mark.Column))
			d.Message = le.Message
		}
		return nil, lines, d
	}
	if doc.Kind == 0 || doc.Kind == yaml.DocumentNode && len(doc.Content) == 0 {
		return nil, lines, nil
	}
	b := &yamlTree{lines: lines, data: data, active: make(map[*yaml.Node]bool)}
	root := b.value(&doc)
	if b.count > maxYAMLNodes {
		return nil, lines, &Diagnostic{Path: path, Line: 1, Column: 1,
			Message: fmt.Sprintf("document expands to more than %d nodes (aliases nested too deep?)", maxYAMLNodes)}
	}
	if root == nil || root.kind == jsonNull {
		return nil, lines, nil
	}
	return root, lines, nil
}

// yamlOffset turns a YAML position (line and column, both 1-based, the
// column in characters) into a byte offset of data.
func yamlOffset(lines lineTable, data []byte, line, col int) int {
	if line < 1 {
		return 0
	}
	if line > len(lines.starts) {
		return len(data)
	}
	off := lines.starts[line-1]
	for i := 1; i < col && off < len(data) && data[off] != '\n'; i++ {
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off
}

type yamlTree struct {
	lines  lineTable
	data   []byte
	count  int
	active map[*yaml.Node]bool // aliases being expanded, against cycles
}

func (b *yamlTree) off(n *yaml.Node) int { return yamlOffset(b.lines, b.data, n.Line, n.Column) }

func (b *yamlTree) value(n *yaml.Node) *jsonValue {
	b.count++
	v := &jsonValue{kind: jsonNull, off: b.off(n)}
	if b.count > maxYAMLNodes {
		return v
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) > 0 {
			return b.value(n.Content[0])
		}
	case yaml.AliasNode:
		if n.Alias == nil || b.active[n.Alias] {
			return v
		}
		b.active[n.Alias] = true
		defer delete(b.active, n.Alias)
		a := b.value(n.Alias)
		// The alias stands where it is written, for positions.
		c := *a
		c.off = v.off
		return &c
	case yaml.SequenceNode:
		v.kind = jsonArray
		for _, c := range n.Content {
			v.elems = append(v.elems, b.value(c))
		}
	case yaml.MappingNode:
		v.kind = jsonObject
		b.mapping(v, n)
	case yaml.ScalarNode:
		v.str = n.Value
		switch n.ShortTag() {
		case "!!null":
		case "!!bool":
			v.kind = jsonBool
			v.b, _ = strconv.ParseBool(strings.ToLower(n.Value))
		case "!!int", "!!float":
			v.kind = jsonNumber
			v.str = strings.ReplaceAll(n.Value, "_", "")
		default:
			v.kind = jsonString
		}
	}
	return v
}

// mapping fills v from a mapping node. Keys written in the mapping win
// over those a "<<" merge key brings in, wherever the merge is written.
func (b *yamlTree) mapping(v *jsonValue, n *yaml.Node) {
	var merged []jsonMember
	own := make(map[string]bool)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue // a complex key; no tool's config has one
		}
		if k.ShortTag() == "!!merge" {
			src := b.value(val)
			srcs := []*jsonValue{src}
			if src.kind == jsonArray {
				srcs = src.elems
			}
			for _, s := range srcs {
				merged = append(merged, s.members...)
			}
			continue
		}
		own[k.Value] = true
		v.members = append(v.members, jsonMember{key: k.Value, off: b.off(k), val: b.value(val)})
	}
	for _, m := range merged {
		if !own[m.key] {
			own[m.key] = true
			v.members = append(v.members, m)
		}
	}
}
