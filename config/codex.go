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

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// CodexProvider reads OpenAI Codex's config.toml: ~/.codex/config.toml (or
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
// filter's allow and deny lists). Codex forwards env_vars and
// env_http_headers only when the variable is set, so they become
// "${VAR:-}" (empty when unset) rather than "${VAR}", which would fail the
// server; a missing bearer token variable is an error in Codex, so that
// one stays "${VAR}". A header in both http_headers and env_http_headers
// becomes "${VAR:-static}": the variable when set, as in Codex. An inline bearer_token is rejected, as Codex does.
// Unknown fields (required, scopes, oauth_resource, …) are ignored.
var CodexProvider = &Provider{
	Name:      codexName,
	ID:        "codex",
	Locations: codexLocations,
	Parse:     parseCodex,
	Sniff:     sniffCodex,
}

func init() { register(CodexProvider) }

const codexName = "Codex"

func codexLocations(env Env) []Location {
	var locs []Location
	if env.ProjectDir != "" {
		locs = append(locs, Location{Path: filepath.Join(env.ProjectDir, ".codex", "config.toml"), Level: LevelProject})
	}
	if dir := absEnvPath(env, "CODEX_HOME"); dir != "" {
		locs = append(locs, Location{Path: filepath.Join(dir, "config.toml"), Level: LevelUser})
	} else if env.Home != "" {
		locs = append(locs, Location{Path: filepath.Join(env.Home, ".codex", "config.toml"), Level: LevelUser})
	}
	return locs
}

var codexServersRE = regexp.MustCompile(`(?m)^[ \t]*(\[[ \t]*mcp_servers\b|mcp_servers[ \t]*[.=])`)

// sniffCodex: Codex is the only tool here whose config is TOML.
func sniffCodex(path string, data []byte) bool {
	return extIs(path, ".toml") || codexServersRE.Match(data)
}

func parseCodex(loc Location, data []byte, _ Env) ([]ServerConfig, []*Diagnostic, error) {
	root, lines, err := readTOML(loc.Path, data)
	if err != nil || root == nil {
		return nil, nil, err
	}
	servers := root.member("mcp_servers")
	if nullish(servers) {
		return nil, nil, nil
	}
	if servers.kind != jsonObject {
		return nil, nil, lines.diag(loc.Path, servers.off, "", "mcp_servers", fmt.Sprintf("want a table of servers by name, got %s", foreignKind(servers)))
	}
	out, warnings := foreignServers(loc, codexName, lines, servers, false, decodeCodex)
	return out, warnings, nil
}

func decodeCodex(e *foreignEntry, c *ServerConfig, v *jsonValue) bool {
	var startupMs, bearer, envHeaders, envVars *jsonValue
	haveStartupSec := false
	for _, m := range v.members {
		val := m.val
		if nullish(val) {
			continue
		}
		switch m.key {
		case "command":
			c.Command = e.str(val, m.key, true)
		case "args":
			c.Args = e.strList(val, m.key, true)
		case "env":
			c.Env = e.strMap(val, m.key, c.Env)
		case "env_vars":
			envVars = val
		case "cwd":
			c.Cwd = e.str(val, m.key, true)
		case "url":
			c.URL = e.str(val, m.key, true)
		case "http_headers":
			c.Headers = e.strMap(val, m.key, c.Headers)
		case "env_http_headers":
			envHeaders = val
		case "bearer_token_env_var":
			bearer = val
		case "bearer_token":
			e.fail(val, m.key, "an inline bearer_token is not supported (Codex rejects it too); put the token in an environment variable and name it in bearer_token_env_var")
		case "startup_timeout_sec":
			c.StartupTimeout = e.duration(val, m.key, time.Second)
			haveStartupSec = true
		case "startup_timeout_ms":
			startupMs = val
		case "tool_timeout_sec":
			c.Timeout = e.duration(val, m.key, time.Second)
		case "enabled":
			c.Disabled = !e.boolean(val, m.key, true)
		case "enabled_tools":
			c.Tools.Allow = e.strList(val, m.key, true)
		case "disabled_tools":
			c.Tools.Deny = e.strList(val, m.key, true)
		}
	}
	// These add to the maps above, whatever their order in the file. As
	// in Codex, env set explicitly wins over env_vars, and a header from
	// env_http_headers wins over http_headers when its variable is set
	// and not empty, which is what ${VAR:-static} says.
	if envVars != nil {
		c.Env = e.passThrough(envVars, "env_vars", ":-", c.Env)
	}
	if envHeaders != nil {
		if envHeaders.kind != jsonObject {
			e.wrong(envHeaders, "env_http_headers", "a table of header names to variable names", true)
		}
		for _, m := range envHeaders.members {
			f := "env_http_headers." + m.key
			name, ok := e.text(m.val)
			switch {
			case !ok:
				e.wrong(m.val, f, "a variable name", true)
			case !envNameOK(name):
				e.fail(m.val, f, fmt.Sprintf("%q is not an environment variable name", clip(name)))
			default:
				static := c.Headers[m.key]
				if strings.ContainsAny(static, "$}") {
					break // cannot be a default; the static value stays
				}
				c.Headers = setKey(c.Headers, m.key, "${"+name+":-"+static+"}")
			}
		}
	}
	if bearer != nil {
		if name := e.str(bearer, "bearer_token_env_var", true); name != "" {
			if !envNameOK(name) {
				e.fail(bearer, "bearer_token_env_var", fmt.Sprintf("%q is not an environment variable name", clip(name)))
			} else {
				c.Headers = setKey(c.Headers, "Authorization", "Bearer ${"+name+"}")
			}
		}
	}
	if startupMs != nil && !haveStartupSec {
		c.StartupTimeout = e.duration(startupMs, "startup_timeout_ms", time.Millisecond)
	}
	switch {
	case c.Command != "" && c.URL == "":
		c.Type = TransportStdio
	case c.URL != "" && c.Command == "":
		c.Type = TransportHTTP
	}
	return true
}

// tomlDateTime is the kind of a TOML date or time in the tree: JSON has
// none, and no Codex field wants one.
const tomlDateTime = jsonObject + 1

// readTOML parses a TOML document into the positioned tree the other
// adapters use. A blank file is a nil root.
//
// github.com/pelletier/go-toml/v2 earns its place over BurntSushi/toml
// because it exposes positions: toml.Unmarshal checks the whole document
// (syntax, and redefined keys and tables) and its *DecodeError carries the
// line and column, and its unstable.Parser gives the byte range of every
// key and value, from which the tree is built. BurntSushi keeps key
// positions private to its MetaData.
func readTOML(path string, data []byte) (*jsonValue, lineTable, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	lines := newLineTable(data)
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, lines, nil
	}
	var check map[string]any
	if err := toml.Unmarshal(data, &check); err != nil {
		return nil, lines, tomlDiag(path, err, nil)
	}
	b := &tomlTree{p: &unstable.Parser{}, root: &jsonValue{kind: jsonObject}}
	b.p.Reset(data)
	cur := b.root
	for b.p.NextExpression() {
		n := b.p.Expression()
		switch n.Kind {
		case unstable.KeyValue:
			b.keyValue(cur, n)
		case unstable.Table, unstable.ArrayTable:
			cur = b.table(n)
		}
	}
	if err := b.p.Error(); err != nil {
		// Unmarshal accepted the file, so this should not happen; report
		// it all the same rather than read half a file.
		return nil, lines, tomlDiag(path, err, b.p)
	}
	return b.root, lines, nil
}

// tomlDiag positions a go-toml error; p is the parser that made it, if any.
func tomlDiag(path string, err error, p *unstable.Parser) *Diagnostic {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if k := de.Key(); len(k) > 0 && !strings.Contains(msg, strings.Join(k, ".")) {
			msg = fmt.Sprintf("%s (key %s)", msg, strings.Join(k, "."))
		}
		return &Diagnostic{Path: path, Line: max(line, 1), Column: max(col, 1), Message: msg}
	}
	var pe *unstable.ParserError
	if p != nil && errors.As(err, &pe) {
		// Highlight is a slice of the document p parsed.
		sh := p.Shape(p.Range(pe.Highlight))
		return &Diagnostic{Path: path, Line: max(sh.Start.Line, 1), Column: max(sh.Start.Column, 1), Message: pe.Message}
	}
	return &Diagnostic{Path: path, Line: 1, Column: 1, Message: err.Error()}
}

// tomlTree builds a jsonValue tree from go-toml's expression stream.
type tomlTree struct {
	p    *unstable.Parser
	root *jsonValue
}

func (b *tomlTree) off(n *unstable.Node) int { return int(n.Raw.Offset) }

// keyParts returns the parts of a (dotted) key.
func keyParts(it unstable.Iterator) []*unstable.Node {
	var parts []*unstable.Node
	for it.Next() {
		parts = append(parts, it.Node())
	}
	return parts
}

// descend returns the table named by k inside t, creating it. Into an
// array of tables, it descends into the last one, as TOML does.
func (b *tomlTree) descend(t *jsonValue, k *unstable.Node) *jsonValue {
	key := string(k.Data)
	for i := range t.members {
		if t.members[i].key != key {
			continue
		}
		v := t.members[i].val
		if v.kind == jsonArray && len(v.elems) > 0 {
			v = v.elems[len(v.elems)-1]
		}
		if v.kind == jsonObject {
			return v
		}
		// Unmarshal rejects redefinitions; never let one panic here.
		return &jsonValue{kind: jsonObject, off: b.off(k)}
	}
	v := &jsonValue{kind: jsonObject, off: b.off(k)}
	t.members = append(t.members, jsonMember{key: key, off: b.off(k), val: v})
	return v
}

func (b *tomlTree) table(n *unstable.Node) *jsonValue {
	parts := keyParts(n.Key())
	if len(parts) == 0 {
		return b.root
	}
	t := b.root
	for _, k := range parts[:len(parts)-1] {
		t = b.descend(t, k)
	}
	last := parts[len(parts)-1]
	if n.Kind == unstable.Table {
		return b.descend(t, last)
	}
	key := string(last.Data)
	var arr *jsonValue
	for i := range t.members {
		if t.members[i].key == key {
			arr = t.members[i].val
		}
	}
	if arr == nil || arr.kind != jsonArray {
		arr = &jsonValue{kind: jsonArray, off: b.off(last)}
		t.members = append(t.members, jsonMember{key: key, off: b.off(last), val: arr})
	}
	el := &jsonValue{kind: jsonObject, off: b.off(last)}
	arr.elems = append(arr.elems, el)
	return el
}

func (b *tomlTree) keyValue(t *jsonValue, n *unstable.Node) {
	parts := keyParts(n.Key())
	if len(parts) == 0 {
		return
	}
	for _, k := range parts[:len(parts)-1] {
		t = b.descend(t, k)
	}
	last := parts[len(parts)-1]
	t.members = append(t.members, jsonMember{key: string(last.Data), off: b.off(last), val: b.value(n.Value(), b.off(last))})
}

// value converts one value; keyOff positions values that have no range of
// their own (arrays).
func (b *tomlTree) value(n *unstable.Node, keyOff int) *jsonValue {
	v := &jsonValue{off: b.off(n)}
	switch n.Kind {
	case unstable.String:
		v.kind, v.str = jsonString, string(n.Data)
	case unstable.Bool:
		v.kind, v.b, v.str = jsonBool, string(n.Data) == "true", string(n.Data)
	case unstable.Integer:
		v.kind, v.str = jsonNumber, string(n.Data)
		if i, err := strconv.ParseInt(strings.ReplaceAll(v.str, "_", ""), 0, 64); err == nil {
			v.str = strconv.FormatInt(i, 10)
		}
	case unstable.Float:
		v.kind, v.str = jsonNumber, strings.ReplaceAll(string(n.Data), "_", "")
		if strings.HasSuffix(v.str, "nan") {
			v.str = "NaN"
		}
	case unstable.Array:
		v.kind, v.off = jsonArray, keyOff
		it := n.Children()
		for it.Next() {
			if c := it.Node(); c.Kind != unstable.Comment {
				v.elems = append(v.elems, b.value(c, keyOff))
			}
		}
	case unstable.InlineTable:
		v.kind = jsonObject
		it := n.Children()
		for it.Next() {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				b.keyValue(v, c)
			}
		}
	default: // dates and times
		v.kind, v.str = tomlDateTime, string(n.Data)
	}
	return v
}
