package config

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// ProviderNative is the Source.Provider of configs read from switchboard's
// own files.
const ProviderNative = "switchboard"

var utf8BOM = []byte("\xef\xbb\xbf")

// ParseNative reads switchboard's native config file (JSON, the shape
// Claude and Cursor use):
//
//	{"mcpServers": {"name": {"command": "…", "args": [], "env": {}, …}}}
//
// It returns the servers in the file's key order, each with its Source (the
// line of its key), substituted (see Substitute) and validated (see
// Validate). A server that cannot be used has Err set to a *Diagnostic
// naming the line, column and field; the others are unaffected. Unknown
// fields are ignored, and null counts as absent. A name defined twice keeps
// both entries, the second one with an Err.
//
// err is only for whole-file problems (bad JSON, a top level or mcpServers
// that is not an object) and is then a *Diagnostic. An empty file or one
// without mcpServers has no servers and no error. A nil lookup means
// os.LookupEnv.
func ParseNative(path string, data []byte, level Level, lookup LookupFunc) (servers []ServerConfig, err error) {
	entries, lines, err := parseNativeEntries(path, data, level)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		c := e.c
		if c.Err == nil {
			if diag := e.d.position(lines, &c, e.keyOff, Substitute(&c, lookup)); diag != nil {
				c.Err = diag
			} else if diag := e.d.position(lines, &c, e.keyOff, Validate(&c)); diag != nil {
				c.Err = diag
			}
		}
		servers = append(servers, c)
	}
	return servers, nil
}

// nativeEntry is one server of a native file as written, before
// substitution, with what is needed to position later errors in it.
type nativeEntry struct {
	c      ServerConfig // Err set for a field of the wrong type or a repeated name
	d      *serverDecoder
	keyOff int
}

// parseNativeEntries is the first half of ParseNative: it reads the file
// and decodes each server as written. Substitution and validation are left
// to the caller, since discovery does them only once trust is known.
func parseNativeEntries(path string, data []byte, level Level) ([]nativeEntry, lineTable, error) {
	// Editors on Windows like to start files with a byte order mark, which
	// encoding/json rejects. Dropping it keeps line 1's columns right too.
	data = bytes.TrimPrefix(data, utf8BOM)
	lines := newLineTable(data)
	if isJSONBlank(data) {
		return nil, lines, nil
	}
	root, perr := parseJSON(data)
	if perr != nil {
		var pe *positionError
		if !errors.As(perr, &pe) {
			pe = &positionError{msg: perr.Error()}
		}
		return nil, lines, lines.diag(path, pe.off, "", "", pe.msg)
	}
	if root.kind != jsonObject {
		return nil, lines, lines.diag(path, root.off, "", "", fmt.Sprintf("top level must be an object, got %s", root.kind))
	}
	list := root.member("mcpServers")
	if list == nil || list.kind == jsonNull {
		return nil, lines, nil
	}
	if list.kind != jsonObject {
		return nil, lines, lines.diag(path, list.off, "", "mcpServers", fmt.Sprintf("want an object of server configs by name, got %s", list.kind))
	}

	var entries []nativeEntry
	firstLine := make(map[string]int)
	for _, m := range list.members {
		line, _ := lines.pos(m.off)
		c := ServerConfig{
			Name:   m.key,
			Source: Source{Provider: ProviderNative, Path: path, Level: level, Line: line},
		}
		d := &serverDecoder{c: &c, fields: make(map[string]int)}
		d.decode(m.val)

		if first, dup := firstLine[m.key]; dup {
			c.Err = lines.diag(path, m.off, m.key, "", fmt.Sprintf("server defined twice; the first definition, at line %d, wins", first))
		} else {
			firstLine[m.key] = line
		}
		if c.Err == nil && d.problem != nil {
			c.Err = lines.diag(path, d.problem.off, m.key, d.problem.field, d.problem.msg)
		}
		d.c = nil // the entry owns its config now
		entries = append(entries, nativeEntry{c: c, d: d, keyOff: m.off})
	}
	return entries, lines, nil
}

// serverDecoder fills one ServerConfig from its JSON object, remembering
// where each field is and the first field of the wrong type.
type serverDecoder struct {
	c       *ServerConfig
	fields  map[string]int // field path → offset of its value
	problem *problem
}

type problem struct {
	off        int
	field, msg string
}

func (d *serverDecoder) fail(v *jsonValue, field, msg string) {
	if d.problem == nil {
		d.problem = &problem{off: v.off, field: field, msg: msg}
	}
}

// position moves a Diagnostic from Substitute or Validate to the line and
// column of the field it names, or of the server's key.
func (d *serverDecoder) position(lines lineTable, c *ServerConfig, keyOff int, err error) *Diagnostic {
	if err == nil {
		return nil
	}
	var src *Diagnostic
	if !errors.As(err, &src) {
		src = &Diagnostic{Message: err.Error(), Err: err}
	}
	off, ok := d.fields[src.Field]
	if !ok {
		off = keyOff
	}
	out := lines.diag(c.Source.Path, off, c.Name, src.Field, src.Message)
	out.Err = src.Err
	return out
}

func (d *serverDecoder) decode(v *jsonValue) {
	c := d.c
	if v.kind != jsonObject {
		d.fail(v, "", fmt.Sprintf("want an object, got %s", v.kind))
		return
	}
	enabled, disabled := true, false
	for _, m := range v.members {
		val := m.val
		if val.kind == jsonNull {
			continue
		}
		switch m.key {
		case "type":
			c.Type = Transport(d.str(m.key, val))
		case "command":
			c.Command = d.str(m.key, val)
		case "args":
			c.Args = d.strList(m.key, val)
		case "env":
			c.Env = d.strMap(m.key, val)
		case "cwd":
			c.Cwd = d.str(m.key, val)
		case "url":
			c.URL = d.str(m.key, val)
		case "headers":
			c.Headers = d.strMap(m.key, val)
		case "enabled":
			enabled = d.bool(m.key, val, enabled)
		case "disabled":
			disabled = d.bool(m.key, val, disabled)
		case "startupTimeout":
			c.StartupTimeout = d.duration(m.key, val)
		case "timeout":
			c.Timeout = d.duration(m.key, val)
		case "autoApprove":
			c.AutoApprove = d.strList(m.key, val)
		case "tools":
			c.Tools = d.toolFilter(m.key, val)
		case "lazy":
			c.Lazy = d.bool(m.key, val, c.Lazy)
		case "pingInterval":
			c.PingInterval = d.duration(m.key, val)
		}
	}
	c.Disabled = disabled || !enabled
}

func (d *serverDecoder) str(field string, v *jsonValue) string {
	d.fields[field] = v.off
	if v.kind != jsonString {
		d.fail(v, field, fmt.Sprintf("want a string, got %s", v.kind))
		return ""
	}
	return v.str
}

func (d *serverDecoder) bool(field string, v *jsonValue, old bool) bool {
	d.fields[field] = v.off
	if v.kind != jsonBool {
		d.fail(v, field, fmt.Sprintf("want true or false, got %s", v.kind))
		return old
	}
	return v.b
}

// strList reads an array of strings; an empty array is nil.
func (d *serverDecoder) strList(field string, v *jsonValue) []string {
	d.fields[field] = v.off
	if v.kind != jsonArray {
		d.fail(v, field, fmt.Sprintf("want an array of strings, got %s", v.kind))
		return nil
	}
	var out []string
	for i, e := range v.elems {
		f := fmt.Sprintf("%s[%d]", field, i)
		d.fields[f] = e.off
		if e.kind != jsonString {
			d.fail(e, f, fmt.Sprintf("want a string, got %s (%s must be an array of strings)", e.kind, field))
			continue
		}
		out = append(out, e.str)
	}
	return out
}

// strMap reads an object of strings; an empty object is nil.
func (d *serverDecoder) strMap(field string, v *jsonValue) map[string]string {
	d.fields[field] = v.off
	if v.kind != jsonObject {
		d.fail(v, field, fmt.Sprintf("want an object of strings, got %s", v.kind))
		return nil
	}
	var out map[string]string
	for _, m := range v.members {
		f := field + "." + m.key
		d.fields[f] = m.val.off
		if m.val.kind != jsonString {
			d.fail(m.val, f, fmt.Sprintf("want a string, got %s", m.val.kind))
			continue
		}
		if out == nil {
			out = make(map[string]string)
		}
		out[m.key] = m.val.str
	}
	return out
}

func (d *serverDecoder) duration(field string, v *jsonValue) time.Duration {
	d.fields[field] = v.off
	if v.kind != jsonString {
		msg := fmt.Sprintf("want a duration string like \"30s\", got %s", v.kind)
		if v.kind == jsonNumber {
			msg = fmt.Sprintf("want a duration string like \"30s\", got the number %s (which unit?)", clip(v.str))
		}
		d.fail(v, field, msg)
		return 0
	}
	t, err := time.ParseDuration(v.str)
	switch {
	case err != nil:
		d.fail(v, field, fmt.Sprintf("invalid duration %q (want a string like \"30s\" or \"2m\")", clip(v.str)))
	case t <= 0 || t > MaxTimeout:
		d.fail(v, field, fmt.Sprintf("%s is out of range (want more than 0s and at most %s)", t, MaxTimeout))
	}
	return t
}

func (d *serverDecoder) toolFilter(field string, v *jsonValue) ToolFilter {
	d.fields[field] = v.off
	if v.kind != jsonObject {
		d.fail(v, field, fmt.Sprintf("want an object with allow and deny lists, got %s", v.kind))
		return ToolFilter{}
	}
	var f ToolFilter
	for _, m := range v.members {
		if m.val.kind == jsonNull {
			continue
		}
		switch m.key {
		case "allow":
			f.Allow = d.strList(field+".allow", m.val)
		case "deny":
			f.Deny = d.strList(field+".deny", m.val)
		}
	}
	return f
}

// The native format is documented in README.md ("Config"): the mcpServers
// map Claude Desktop introduced, with every field switchboard has. Its
// files come first in precedence (SPEC §8).
func init() {
	register(&Provider{
		Name: ProviderNative,
		ID:   "switchboard",
		Locations: func(env Env) []Location {
			var locs []Location
			if env.ProjectDir != "" {
				locs = append(locs, Location{Path: ProjectConfigPath(env.ProjectDir), Level: LevelProject})
			}
			if env.Home != "" || hasAbsEnv(env, "XDG_CONFIG_HOME") {
				locs = append(locs, Location{Path: filepath.Join(env.configHome(), "switchboard", "mcp.json"), Level: LevelUser})
			}
			return locs
		},
		Parse: func(loc Location, data []byte, _ Env) ([]ServerConfig, []*Diagnostic, error) {
			entries, _, err := parseNativeEntries(loc.Path, data, loc.Level)
			if err != nil {
				return nil, nil, err
			}
			servers := make([]ServerConfig, 0, len(entries))
			for _, e := range entries {
				servers = append(servers, e.c)
			}
			return servers, nil, nil
		},
		Sniff: func(path string, _ []byte) bool {
			return nameIs(path, "/switchboard/mcp.json", "/.switchboard/mcp.json")
		},
	})
}

func hasAbsEnv(env Env, name string) bool {
	v, ok := env.lookup(name)
	return ok && filepath.IsAbs(v)
}
