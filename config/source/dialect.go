package source

import (
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// This file reads the "mcpServers"-style entry (command, args, env, url,
// headers, …) that most tools copied from Claude Desktop, with each tool's
// variations described by a dialect.

// transportNames are the spellings of a transport type the JSON-family
// tools use, lower-cased.
var transportNames = map[string]config.Transport{
	"stdio":           config.TransportStdio,
	"local":           config.TransportStdio,
	"http":            config.TransportHTTP,
	"streamable-http": config.TransportHTTP,
	"streamablehttp":  config.TransportHTTP,
	"streamable_http": config.TransportHTTP,
	"streamable":      config.TransportHTTP,
	"remote":          config.TransportAuto,
	"sse":             config.TransportSSE,
}

// dialect is one tool's variant of the common mcpServers entry.
type dialect struct {
	// typeKeys name the transport: "type", and for Cline also the legacy
	// "transportType". The first one present wins.
	typeKeys []string
	// urlKeys are the keys that hold a remote server's url, each with the
	// transport it implies (TransportAuto: whatever "type" says). The
	// first one present wins.
	urlKeys []urlKey
	// urlNoType is the transport of a url when neither its key nor a type
	// says (Cline: SSE); TransportAuto tries streamable HTTP, then SSE.
	urlNoType config.Transport
	cwd       bool // "cwd" is read
	disabled  bool // "disabled" is read
	// autoApprove is the key of the auto-approve list, or "".
	autoApprove string
	// disabledTools is the key of a list of tools to hide, or "".
	disabledTools string
	// timeout is the unit of a numeric "timeout", or 0 when it is not read.
	timeout time.Duration
	// extra handles the tool's own fields; it returns false for a key it
	// does not know, which is then ignored.
	extra func(e *entry, key string, v *doc.Value) bool
}

type urlKey struct {
	key       string
	transport config.Transport
}

// decode fills e.c from one entry object.
func (dl *dialect) decode(e *entry, v *doc.Value) bool {
	c := e.c
	var typeVal, urlVal *doc.Value
	typeKey, uk := "", urlKey{}
	for _, m := range v.Members {
		val := m.Val
		if val.Kind == doc.Null {
			continue
		}
		switch key := m.Key; {
		case key == "command":
			c.Command = e.str(val, key)
		case key == "args":
			c.Args = e.strList(val, key, true)
		case key == "env":
			c.Env = e.strMap(val, key, c.Env)
		case key == "headers":
			c.Headers = e.strMap(val, key, c.Headers)
		case key == "cwd" && dl.cwd:
			c.Cwd = e.str(val, key)
		case key == "disabled" && dl.disabled:
			c.Disabled = e.boolean(val, key, c.Disabled)
		case key == dl.autoApprove && key != "":
			c.AutoApprove = e.strList(val, key, false)
		case key == dl.disabledTools && key != "":
			c.Tools.Deny = e.strList(val, key, true)
		case key == "timeout" && dl.timeout > 0:
			c.Timeout = e.duration(val, key, dl.timeout)
		case dl.typeRank(key) >= 0:
			if typeVal == nil || dl.typeRank(key) < dl.typeRank(typeKey) {
				typeVal, typeKey = val, key
			}
		case dl.urlRank(key) >= 0:
			if urlVal == nil || dl.urlRank(key) < dl.urlRank(uk.key) {
				urlVal, uk = val, dl.keys()[dl.urlRank(key)]
			}
		default:
			if dl.extra != nil {
				dl.extra(e, key, val)
			}
		}
	}
	if typeVal != nil {
		if s := e.str(typeVal, typeKey); typeVal.Kind == doc.String {
			t, known := transportNames[strings.ToLower(s)]
			if !known {
				e.fail(typeVal, typeKey, fmt.Sprintf("unknown type %q (want stdio, http or sse)", clip.Text(s)))
			}
			c.Type = t
			e.at("type", typeVal)
		}
	}
	if urlVal != nil {
		c.URL = e.str(urlVal, uk.key)
		e.at("url", urlVal)
		switch {
		case uk.transport != config.TransportAuto && (typeVal == nil || c.Type == config.TransportAuto):
			c.Type = uk.transport
		case typeVal == nil:
			c.Type = dl.urlNoType
		}
	}
	return true
}

func (dl *dialect) typeRank(key string) int {
	keys := dl.typeKeys
	if keys == nil {
		keys = []string{"type"}
	}
	for i, k := range keys {
		if k == key {
			return i
		}
	}
	return -1
}

func (dl *dialect) urlRank(key string) int {
	for i, k := range dl.keys() {
		if k.key == key {
			return i
		}
	}
	return -1
}

func (dl *dialect) keys() []urlKey {
	if dl.urlKeys == nil {
		return []urlKey{{key: "url"}}
	}
	return dl.urlKeys
}

// mcpFile is one JSON-family tool's file of servers.
type mcpFile struct {
	provider string
	// keys lead from the top level to the object of servers by name:
	// ["mcpServers"], ["mcp", "servers"].
	keys    []string
	jsonc   bool
	dialect *dialect
	syntax  *syntax
	// dedicated: the file holds the tool's MCP servers and little else
	// (an mcp.json, not a settings file), so a server left at the top
	// level, or under the other family's key, is a mistake to warn about
	// rather than ignore in silence.
	dedicated bool
}

// parseMCPServers is Provider.Parse for a tool whose file is an object
// with the servers under f.keys, decoded by f.dialect.
func parseMCPServers(loc Location, data []byte, f mcpFile) ([]Entry, []*config.Diagnostic, error) {
	d, err := parseObject(loc, data, f.jsonc)
	if err != nil || d == nil {
		return nil, nil, err
	}
	dec := newDecoder(d, f.provider, loc)
	dec.syntax = f.syntax
	obj := d.Root
	for i, key := range f.keys {
		what := "an object of server configs by name"
		if i < len(f.keys)-1 {
			what = "an object"
		}
		if obj, err = dec.object(obj, key, what); err != nil {
			return nil, nil, err
		}
	}
	entries := dec.servers(obj, f.dialect.decode)
	if f.dedicated {
		dec.misplaced(d.Root, f.provider, f.keys[0])
	}
	return entries, dec.warnings, nil
}

// misplaced warns about the servers a dedicated file of provider holds
// where the tool does not look for them, next to key: an entry at the top
// level (a .mcp.json without its "mcpServers"), or the other family's
// object of servers (VS Code's "servers" in a Claude-style file, or
// "mcpServers" in VS Code's).
func (d *decoder) misplaced(root *doc.Value, provider, key string) {
	other := map[string]string{"servers": "VS Code's", "mcpServers": "Claude's and Cursor's"}
	for _, m := range root.Members {
		switch {
		case m.Key == key:
		case other[m.Key] != "" && m.Val.Kind == doc.Object && len(m.Val.Members) > 0:
			d.warnings = append(d.warnings, d.doc.Diag(m.Off, "", m.Key,
				fmt.Sprintf("%q is %s key for servers; %s reads them from %q, so %s ignored", m.Key, other[m.Key], provider, key, countServers(len(m.Val.Members)))))
		case looksLikeServer(m.Val):
			d.warnings = append(d.warnings, d.doc.Diag(m.Off, m.Key, "",
				fmt.Sprintf("this looks like a server, but %s reads servers only from %q; ignored (move it into \"%s\": {…})", provider, key, key)))
		}
	}
}

// countServers says "the server here is" or "the N servers here are".
func countServers(n int) string {
	if n == 1 {
		return "the server here is"
	}
	return fmt.Sprintf("the %d servers here are", n)
}

// looksLikeServer reports whether v is an object with a command or a url.
func looksLikeServer(v *doc.Value) bool {
	if v == nil || v.Kind != doc.Object {
		return false
	}
	for _, k := range []string{"command", "url", "serverUrl", "httpUrl"} {
		if f := v.Member(k); f != nil && (f.Kind == doc.String || f.Kind == doc.Array) {
			return true
		}
	}
	return false
}

// parseObject parses a JSON or JSONC file whose top level must be an
// object; a blank file is nil and no error.
func parseObject(loc Location, data []byte, jsonc bool) (*doc.Doc, error) {
	d, err := doc.ParseJSON(loc.Path, data, jsonc)
	if err != nil {
		return nil, err
	}
	if d.Root == nil {
		return nil, nil
	}
	if d.Root.Kind != doc.Object {
		return nil, d.Diag(d.Root.Off, "", "", fmt.Sprintf("top level must be an object, got %s", d.Root.Kind))
	}
	return d, nil
}
