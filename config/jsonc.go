package config

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// This file is shared by the adapters for the formats outside the
// mcpServers JSON family (codex.go, opencode.go, zed.go, goose.go,
// continue.go). Each turns its document into the positioned jsonValue tree
// of jsontree.go (TOML and YAML by conversion, JSONC through
// blankJSONComments), and foreignEntry reads one server entry out of it,
// so that all of them position problems and treat wrong types alike.

// readJSONCTree parses a JSONC document (comments and trailing commas
// allowed) into a tree whose offsets are those of data, so lines (built
// from the same bytes) turns them into line:column. A blank file is a nil
// root and no error; a malformed one is a *Diagnostic. A top level that is
// not an object is left to the caller.
func readJSONCTree(path string, data []byte) (*jsonValue, lineTable, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	std := blankJSONComments(data)
	lines := newLineTable(data)
	if isJSONBlank(std) {
		return nil, lines, nil
	}
	root, err := parseJSON(std)
	if err != nil {
		var pe *positionError
		if !errors.As(err, &pe) {
			pe = &positionError{msg: err.Error()}
		}
		return nil, lines, lines.diag(path, pe.off, "", "", pe.msg)
	}
	return root, lines, nil
}

// setKey sets m[k] = v, allocating m when it is nil.
func setKey(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = make(map[string]string)
	}
	m[k] = v
	return m
}

// foreignKind names a value's type in messages.
func foreignKind(v *jsonValue) string {
	if v.kind == tomlDateTime {
		return "a date-time"
	}
	return v.kind.String()
}

// nullish reports whether v is absent or null; adapters treat both alike.
func nullish(v *jsonValue) bool { return v == nil || v.kind == jsonNull }

// foreignEntry reads the fields of one server entry. A field of the wrong
// type is ignored with a warning (SPEC §8) when its default is safe (a
// timeout); when it decides what runs, where it connects, whether it runs
// at all or which tools it exposes (command, args, env, cwd, url, headers,
// type, enabled, tool lists), it is the server's Err instead: the server
// keeps its name but never starts with half its configuration.
type foreignEntry struct {
	lines  lineTable
	path   string
	server string
	keyOff int // where the entry's key (or list item) starts
	// textScalars takes numbers and booleans where a string is wanted, as
	// their text: in YAML, `args: [--port, 8080]` means the string "8080".
	// In JSON and TOML a string is quoted, so there it is a wrong type.
	textScalars bool

	warnings []*Diagnostic
	err      *Diagnostic
}

func (e *foreignEntry) warn(v *jsonValue, field, msg string) {
	e.warnings = append(e.warnings, e.lines.diag(e.path, v.off, e.server, field, msg))
}

// fail records a problem that makes the server unusable; the first one is
// its Err.
func (e *foreignEntry) fail(v *jsonValue, field, msg string) {
	if e.err == nil {
		e.err = e.lines.diag(e.path, v.off, e.server, field, msg)
	}
}

func (e *foreignEntry) wrong(v *jsonValue, field, want string, essential bool) {
	msg := fmt.Sprintf("want %s, got %s", want, foreignKind(v))
	if essential {
		e.fail(v, field, msg)
	} else {
		e.warn(v, field, msg+"; ignored")
	}
}

func (e *foreignEntry) text(v *jsonValue) (string, bool) {
	switch {
	case v.kind == jsonString:
		return v.str, true
	case e.textScalars && (v.kind == jsonNumber || v.kind == jsonBool):
		return v.str, true
	}
	return "", false
}

func (e *foreignEntry) str(v *jsonValue, field string, essential bool) string {
	s, ok := e.text(v)
	if !ok {
		e.wrong(v, field, "a string", essential)
	}
	return s
}

// boolean reads true or false, or returns old. The booleans adapters read
// are the enabled and disabled switches: ignoring one could start a server
// the person turned off, so a wrong type fails the server.
func (e *foreignEntry) boolean(v *jsonValue, field string, old bool) bool {
	if v.kind != jsonBool {
		e.wrong(v, field, "true or false", true)
		return old
	}
	return v.b
}

// strList reads an array of strings; an empty array is nil.
func (e *foreignEntry) strList(v *jsonValue, field string, essential bool) []string {
	if v.kind != jsonArray {
		e.wrong(v, field, "an array of strings", essential)
		return nil
	}
	var out []string
	for i, el := range v.elems {
		s, ok := e.text(el)
		if !ok {
			e.wrong(el, fmt.Sprintf("%s[%d]", field, i), "a string", essential)
			continue
		}
		out = append(out, s)
	}
	return out
}

// strMap reads an object of strings into dst, allocating it when needed.
// Numbers and booleans are taken as their text in every format (an env
// value of 8080 means "8080" to every tool that allows it), and null
// values are left out. A wrong type fails the server: env and headers
// decide how it runs.
func (e *foreignEntry) strMap(v *jsonValue, field string, dst map[string]string) map[string]string {
	if v.kind != jsonObject {
		e.wrong(v, field, "an object of strings", true)
		return dst
	}
	for _, m := range v.members {
		var s string
		switch m.val.kind {
		case jsonString, jsonNumber, jsonBool:
			s = m.val.str
			if m.val.kind == jsonBool {
				s = strconv.FormatBool(m.val.b)
			}
		case jsonNull:
			continue
		default:
			e.wrong(m.val, field+"."+m.key, "a string", true)
			continue
		}
		dst = setKey(dst, m.key, s)
	}
	return dst
}

// passThrough reads a list of environment variable names and sets each in
// dst to a reference to itself, "${NAME" + suffix + "}", unless dst sets it
// already: the tools that have such lists forward those variables from
// their own environment, which is what substitution does.
func (e *foreignEntry) passThrough(v *jsonValue, field, suffix string, dst map[string]string) map[string]string {
	if v.kind != jsonArray {
		e.wrong(v, field, "an array of variable names", true)
		return dst
	}
	for i, el := range v.elems {
		f := fmt.Sprintf("%s[%d]", field, i)
		name, ok := e.text(el)
		switch {
		case !ok:
			e.wrong(el, f, "a variable name", true)
		case !envNameOK(name):
			e.fail(el, f, fmt.Sprintf("%q is not an environment variable name", clip(name)))
		default:
			if _, set := dst[name]; !set {
				dst = setKey(dst, name, "${"+name+suffix+"}")
			}
		}
	}
	return dst
}

// envNameOK reports whether s can be referenced as ${s}.
func envNameOK(s string) bool {
	for i := range len(s) {
		if !isNameByte(s[i], i == 0) {
			return false
		}
	}
	return s != ""
}

// duration reads a number of units (seconds, milliseconds). A value that is
// not a positive number up to MaxTimeout is ignored with a warning: the
// server still starts, with the default timeout.
func (e *foreignEntry) duration(v *jsonValue, field string, unit time.Duration) time.Duration {
	units := "seconds"
	if unit == time.Millisecond {
		units = "milliseconds"
	}
	if v.kind != jsonNumber {
		e.wrong(v, field, "a number of "+units, false)
		return 0
	}
	f, err := strconv.ParseFloat(v.str, 64)
	if err != nil || !(f > 0 && f*float64(unit) <= float64(MaxTimeout)) {
		e.warn(v, field, fmt.Sprintf("%s %s is out of range (want more than 0 and at most %s); ignored", clip(v.str), units, MaxTimeout))
		return 0
	}
	return time.Duration(f * float64(unit))
}

// foreignDecode fills c from one entry object. It returns false for an
// entry that is not a server switchboard can start at all (a Zed
// extension, a Goose builtin), after warning if the person should know.
type foreignDecode func(e *foreignEntry, c *ServerConfig, v *jsonValue) bool

// foreignServers decodes the members of an object of servers by name, in
// file order. A name defined twice keeps both entries, the second with an
// Err, as ParseNative does.
func foreignServers(loc Location, provider string, lines lineTable, servers *jsonValue, textScalars bool, decode foreignDecode) ([]ServerConfig, []*Diagnostic) {
	var out []ServerConfig
	var warnings []*Diagnostic
	first := make(map[string]int)
	for _, m := range servers.members {
		c, w, ok := foreignServer(loc, provider, lines, m.key, m.off, m.val, textScalars, decode)
		warnings = append(warnings, w...)
		if !ok {
			continue
		}
		if line, dup := first[c.Name]; dup {
			c.Err = lines.diag(loc.Path, m.off, c.Name, "", fmt.Sprintf("server defined twice; the first definition, at line %d, wins", line))
		} else {
			first[c.Name] = c.Source.Line
		}
		out = append(out, c)
	}
	return out, warnings
}

// foreignServer decodes one entry named name whose key (or list item)
// starts at off.
func foreignServer(loc Location, provider string, lines lineTable, name string, off int, v *jsonValue, textScalars bool, decode foreignDecode) (ServerConfig, []*Diagnostic, bool) {
	line, _ := lines.pos(off)
	c := ServerConfig{
		Name:   name,
		Source: Source{Provider: provider, Path: loc.Path, Level: loc.Level, Line: line},
	}
	e := &foreignEntry{lines: lines, path: loc.Path, server: name, keyOff: off, textScalars: textScalars}
	ok := true
	if v.kind != jsonObject {
		e.fail(v, "", fmt.Sprintf("want an object, got %s", foreignKind(v)))
	} else {
		ok = decode(e, &c, v)
	}
	if e.err != nil {
		c.Err = e.err
	}
	return c, e.warnings, ok
}

// extIs reports whether path ends in one of exts (".yaml"), in any case.
func extIs(path string, exts ...string) bool {
	ext := filepath.Ext(path)
	for _, x := range exts {
		if strings.EqualFold(ext, x) {
			return true
		}
	}
	return false
}

// slashSuffix reports whether path, with forward slashes, ends in suffix
// at a path element boundary ("zed/settings.json").
func slashSuffix(path, suffix string) bool {
	p := filepath.ToSlash(path)
	return p == suffix || strings.HasSuffix(p, "/"+suffix)
}

// userConfigHome is $XDG_CONFIG_HOME, or ~/.config, or "" with no home.
// The XDG spec says a relative value is invalid and is ignored.
func userConfigHome(env Env) string {
	if dir := absEnvPath(env, "XDG_CONFIG_HOME"); dir != "" {
		return dir
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, ".config")
}

// absEnvPath is the absolute path a variable holds, or "".
func absEnvPath(env Env, name string) string {
	if v, ok := orEnv(env.Lookup)(name); ok && filepath.IsAbs(v) {
		return v
	}
	return ""
}
