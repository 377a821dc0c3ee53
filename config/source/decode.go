package source

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// This file is the one entry decoder every format shares (DESIGN.md, "One
// tree, one decoder"). Adapters map their tool's keys onto it; the rule
// for each kind of field is decided here, once:
//
//   - A field that decides what runs, where it connects, whether it runs
//     at all or which tools it exposes (command, args, env, cwd, url,
//     headers, type, enabled and disabled, lazy, tool lists) must have the
//     right type, or the server is unusable: it keeps its name, with Err
//     naming the field, and never starts with half its configuration.
//   - A switch with a safe default (timeouts, ping interval, auto-approve)
//     of the wrong type or out of range is ignored with a warning: the
//     default stands and the server starts.
//   - env and header values may be strings, numbers or booleans, taken as
//     their text (an env value of 8080 means "8080" to every tool that
//     allows it); null values are left out.
//   - A YAML scalar is text where text is wanted (`args: [--port, 8080]`);
//     in JSON and TOML a string is quoted, so a number there is a wrong
//     type.
//   - null counts as absent; unknown fields are ignored.

// Entry is one server definition as a file wrote it, with what is needed
// to position later problems in it (substitution, validation, a failing
// secret helper) at the field they are about.
type Entry struct {
	Config config.ServerConfig

	path   string
	lines  doc.Lines
	keyOff int            // where the entry's key (or list item) starts
	fields map[string]int // canonical field path → offset of its value
	// syntax is how its tool names variables; nil is our own.
	syntax *syntax
	// refs are the env and header values its tool takes from the
	// environment by name, by canonical field ("env.TOKEN").
	refs map[string]ref
}

// Locate returns err positioned in the entry's file: a *config.Diagnostic
// naming a field the entry recorded moves to that field's line and
// column, any other to the entry's key. Other errors become a Diagnostic
// there. nil stays nil.
func (e *Entry) Locate(err error) error {
	if err == nil {
		return nil
	}
	var src *config.Diagnostic
	if !errors.As(err, &src) {
		src = &config.Diagnostic{Message: err.Error(), Err: err}
	}
	if e.path == "" {
		return err // not from a file (a test's Entry)
	}
	off, ok := e.fields[src.Field]
	if !ok {
		off = e.keyOff
	}
	out := e.lines.Diag(e.path, off, e.Config.Name, src.Field, src.Message)
	out.Err = src.Err
	return out
}

// Configs returns the entries' configs, in order.
func Configs(entries []Entry) []config.ServerConfig {
	out := make([]config.ServerConfig, len(entries))
	for i := range entries {
		out[i] = entries[i].Config
	}
	return out
}

// decoder reads the server entries of one file.
type decoder struct {
	doc      *doc.Doc
	provider string
	loc      Location
	// textScalars takes numbers and booleans where a string is wanted, as
	// their text (YAML).
	textScalars bool
	// aliases are the tool's field names for canonical ones, {canonical,
	// field}: positions read under the field are kept under the canonical
	// name too (see entry.alias).
	aliases [][2]string
	// syntax is how the file's tool names variables; nil is our own.
	syntax   *syntax
	warnings []*config.Diagnostic
}

func newDecoder(d *doc.Doc, provider string, loc Location) *decoder {
	return &decoder{doc: d, provider: provider, loc: loc}
}

// servers decodes each member of obj, an object of server entries by
// name, in file order. decode returns false for an entry that is no
// server switchboard can start (a Zed extension, a Goose builtin), after
// warning if the person should know. A name defined twice keeps both
// entries, the second with an Err.
func (d *decoder) servers(obj *doc.Value, decode func(e *entry, v *doc.Value) bool) []Entry {
	if obj == nil {
		return nil
	}
	var out []Entry
	first := make(map[string]int)
	for _, m := range obj.Members {
		en, ok := d.server(m.Key, m.Off, m.Val, decode)
		if !ok {
			continue
		}
		if line, dup := first[m.Key]; dup {
			en.Config.Err = d.doc.Diag(m.Off, m.Key, "", fmt.Sprintf("server defined twice; the first definition, at line %d, wins", line))
		} else {
			first[m.Key] = en.Config.Source.Line
		}
		out = append(out, en)
	}
	return out
}

// server decodes one entry named name whose key (or list item) starts at
// off.
func (d *decoder) server(name string, off int, v *doc.Value, decode func(e *entry, v *doc.Value) bool) (Entry, bool) {
	en := Entry{
		Config: config.ServerConfig{
			Name:   name,
			Source: config.Source{Provider: d.provider, Path: d.loc.Path, Level: d.loc.Level, Line: d.doc.Lines.Line(off)},
		},
		path: d.doc.Path, lines: d.doc.Lines, keyOff: off, fields: make(map[string]int),
		syntax: d.syntax, refs: make(map[string]ref),
	}
	e := &entry{d: d, c: &en.Config, fields: en.fields, refs: en.refs, keyOff: off}
	ok := true
	if v.Kind != doc.Object {
		e.fail(v, "", fmt.Sprintf("want an object, got %s", d.kind(v)))
	} else {
		ok = decode(e, v)
		for _, a := range d.aliases {
			e.alias(a[0], a[1])
		}
	}
	if e.err != nil {
		en.Config.Err = e.err
	}
	// A skipped entry keeps only the warning that says why.
	d.warnings = append(d.warnings, e.warnings...)
	return en, ok
}

// kind names a value's type in messages.
func (d *decoder) kind(v *doc.Value) string { return v.Kind.String() }

// object returns the object under key in v, or nil when it is absent or
// null. Anything else is a whole-file error: the file does not hold what
// the tool would read from it.
func (d *decoder) object(v *doc.Value, key, what string) (*doc.Value, error) {
	if v == nil {
		return nil, nil
	}
	o := v.Member(key)
	if doc.Nullish(o) {
		return nil, nil
	}
	if o.Kind != doc.Object {
		return nil, d.doc.Diag(o.Off, "", key, fmt.Sprintf("want %s, got %s", what, d.kind(o)))
	}
	return o, nil
}

// entry is one server entry being decoded.
type entry struct {
	d        *decoder
	c        *config.ServerConfig
	fields   map[string]int
	refs     map[string]ref
	keyOff   int
	warnings []*config.Diagnostic
	err      *config.Diagnostic
}

// at records where a canonical field's value is, for Entry.Locate.
func (e *entry) at(field string, v *doc.Value) { e.fields[field] = v.Off }

// alias records the positions read under the tool's field name (Goose's
// "envs", Codex's "http_headers") under the canonical name they fill
// ("env", "headers"), elements and members included, so that later
// errors about the canonical field point into the tool's.
func (e *entry) alias(canonical, field string) {
	for k, off := range e.fields {
		rest, ok := strings.CutPrefix(k, field)
		if !ok || rest != "" && rest[0] != '.' && rest[0] != '[' {
			continue
		}
		if _, set := e.fields[canonical+rest]; !set {
			e.fields[canonical+rest] = off
		}
	}
}

func (e *entry) warn(v *doc.Value, field, msg string) {
	e.warnings = append(e.warnings, e.d.doc.Diag(v.Off, e.c.Name, field, msg))
}

// fail records a problem that makes the server unusable; the first one is
// its Err.
func (e *entry) fail(v *doc.Value, field, msg string) {
	if e.err == nil {
		e.err = e.d.doc.Diag(v.Off, e.c.Name, field, msg)
	}
}

// wrong reports a value of the wrong type: the server's Err for an
// essential field, a warning for a switch with a safe default.
func (e *entry) wrong(v *doc.Value, field, want string, essential bool) {
	msg := fmt.Sprintf("want %s, got %s", want, e.d.kind(v))
	if essential {
		e.fail(v, field, msg)
	} else {
		e.warn(v, field, msg+"; ignored")
	}
}

func (e *entry) text(v *doc.Value) (string, bool) {
	switch {
	case v.Kind == doc.String:
		return v.Str, true
	case e.d.textScalars && (v.Kind == doc.Number || v.Kind == doc.Bool):
		return v.Str, true
	}
	return "", false
}

// str reads a string. Every string field decides what runs or where.
func (e *entry) str(v *doc.Value, field string) string {
	e.at(field, v)
	s, ok := e.text(v)
	if !ok {
		e.wrong(v, field, "a string", true)
	}
	return s
}

// boolean reads true or false, or returns old. The booleans are the
// enabled, disabled and lazy switches: ignoring one could start a server
// the person turned off, so a wrong type fails the server.
func (e *entry) boolean(v *doc.Value, field string, old bool) bool {
	e.at(field, v)
	if v.Kind != doc.Bool {
		e.wrong(v, field, "true or false", true)
		return old
	}
	return v.Bool
}

// strList reads an array of strings; an empty array is nil. Not
// essential (auto-approve), a wrong element is skipped with a warning.
func (e *entry) strList(v *doc.Value, field string, essential bool) []string {
	e.at(field, v)
	if v.Kind != doc.Array {
		e.wrong(v, field, "an array of strings", essential)
		return nil
	}
	var out []string
	for i, el := range v.Elems {
		f := fmt.Sprintf("%s[%d]", field, i)
		e.at(f, el)
		s, ok := e.text(el)
		if !ok {
			e.wrong(el, f, "a string", essential)
			continue
		}
		out = append(out, s)
	}
	return out
}

// strMap reads an object of strings into dst, allocating it when needed
// (see the rules above). A wrong type fails the server: env and headers
// decide how it runs.
func (e *entry) strMap(v *doc.Value, field string, dst map[string]string) map[string]string {
	e.at(field, v)
	if v.Kind != doc.Object {
		e.wrong(v, field, "an object of strings", true)
		return dst
	}
	for _, m := range v.Members {
		f := field + "." + m.Key
		e.at(f, m.Val)
		switch m.Val.Kind {
		case doc.String, doc.Number:
			dst = setKey(dst, m.Key, m.Val.Str)
		case doc.Bool:
			// YAML's True and FALSE are the booleans true and false.
			dst = setKey(dst, m.Key, strconv.FormatBool(m.Val.Bool))
		case doc.Null:
		default:
			e.wrong(m.Val, f, "a string", true)
		}
	}
	return dst
}

// passThrough reads a list of environment variable names, each to be set
// in the map field (env) from the variable of that name, unless dst sets
// it already: the tools that have such lists forward those variables from
// their own environment. dst shows each as "${NAME" + suffix + "}"; r says
// how Substitute resolves it (r.name is filled in).
func (e *entry) passThrough(v *doc.Value, field, mapField, suffix string, r ref, dst map[string]string) map[string]string {
	e.at(field, v)
	if v.Kind != doc.Array {
		e.wrong(v, field, "an array of variable names", true)
		return dst
	}
	for i, el := range v.Elems {
		f := fmt.Sprintf("%s[%d]", field, i)
		name, ok := e.text(el)
		switch {
		case !ok:
			e.wrong(el, f, "a variable name", true)
		case !config.IsVariableName(name):
			e.fail(el, f, fmt.Sprintf("%q is not an environment variable name", clip.Text(name)))
		default:
			if _, set := dst[name]; !set {
				dst = setKey(dst, name, "${"+name+suffix+"}")
				e.byName(mapField+"."+name, el, r, name)
			}
		}
	}
	return dst
}

// byName records that field's value is taken from the variable name, by
// r's rule, where v names it.
func (e *entry) byName(field string, v *doc.Value, r ref, name string) {
	r.name = name
	e.refs[field] = r
	e.at(field, v)
}

// duration reads a number of units (seconds, milliseconds), as most tools
// write timeouts. Not a positive number up to config.MaxTimeout, it is
// ignored with a warning: the server still starts, with the default.
func (e *entry) duration(v *doc.Value, field string, unit time.Duration) time.Duration {
	units := "seconds"
	if unit == time.Millisecond {
		units = "milliseconds"
	}
	if v.Kind != doc.Number {
		e.wrong(v, field, "a number of "+units, false)
		return 0
	}
	f, err := strconv.ParseFloat(v.Str, 64)
	if err != nil || !(f > 0 && f*float64(unit) <= float64(config.MaxTimeout)) {
		e.warn(v, field, fmt.Sprintf("%s %s is out of range (want more than 0 and at most %s); ignored", clip.Text(v.Str), units, config.MaxTimeout))
		return 0
	}
	return time.Duration(f * float64(unit))
}

// durationText reads a Go duration string ("30s", "2m"), as our own file
// writes timeouts, with the same rule as duration.
func (e *entry) durationText(v *doc.Value, field string) time.Duration {
	if v.Kind != doc.String {
		if v.Kind == doc.Number {
			e.warn(v, field, fmt.Sprintf("want a duration string like \"30s\", got the number %s (which unit?); ignored", clip.Text(v.Str)))
		} else {
			e.wrong(v, field, `a duration string like "30s"`, false)
		}
		return 0
	}
	t, err := time.ParseDuration(v.Str)
	switch {
	case err != nil:
		e.warn(v, field, fmt.Sprintf("invalid duration %q (want a string like \"30s\" or \"2m\"); ignored", clip.Text(v.Str)))
		return 0
	case t <= 0 || t > config.MaxTimeout:
		e.warn(v, field, fmt.Sprintf("%s is out of range (want more than 0s and at most %s); ignored", t, config.MaxTimeout))
		return 0
	}
	return t
}

// size reads a size limit: a number of bytes, or a string with a unit
// ("64MiB", "100MB"), in [config.MinMessageSize, config.MaxMessageSizeLimit].
// A wrong one is a warning and the default stands, as for a timeout.
func (e *entry) size(v *doc.Value, field string) int64 {
	var n int64
	switch v.Kind {
	case doc.Number:
		f, err := strconv.ParseFloat(v.Str, 64)
		if err != nil || !(f >= 0 && f <= float64(config.MaxMessageSizeLimit)) {
			e.warn(v, field, fmt.Sprintf("%s bytes is out of range (want at least %s and at most %s); ignored",
				clip.Text(v.Str), config.FormatSize(config.MinMessageSize), config.FormatSize(config.MaxMessageSizeLimit)))
			return 0
		}
		n = int64(f)
	case doc.String:
		var err error
		if n, err = config.ParseSize(v.Str); err != nil {
			e.warn(v, field, fmt.Sprintf("invalid size %q: %v; ignored", clip.Text(v.Str), err))
			return 0
		}
	default:
		e.wrong(v, field, `a size like "64MiB" or a number of bytes`, false)
		return 0
	}
	if n < config.MinMessageSize || n > config.MaxMessageSizeLimit {
		e.warn(v, field, fmt.Sprintf("%s is out of range (want at least %s and at most %s); ignored",
			config.FormatSize(n), config.FormatSize(config.MinMessageSize), config.FormatSize(config.MaxMessageSizeLimit)))
		return 0
	}
	return n
}

// port reads a TCP port, 1 to 65535. The redirect of a pre-registered
// client must be on its port, so a wrong one fails the server.
func (e *entry) port(v *doc.Value, field string) int {
	e.at(field, v)
	n, err := strconv.Atoi(v.Str)
	if v.Kind != doc.Number || err != nil || n < 1 || n > 65535 {
		e.wrong(v, field, "a port number from 1 to 65535", true)
		return 0
	}
	return n
}

// canonical reads a key that means in the tool's file what it means in
// ours — command, args, env, cwd, url, headers — and reports whether key
// was one of those. Adapters call it for the keys they share with us and
// map the rest themselves.
func (e *entry) canonical(key string, v *doc.Value) bool {
	c := e.c
	switch key {
	case "command":
		c.Command = e.str(v, key)
	case "args":
		c.Args = e.strList(v, key, true)
	case "env":
		c.Env = e.strMap(v, key, c.Env)
	case "cwd":
		c.Cwd = e.str(v, key)
	case "url":
		c.URL = e.str(v, key)
	case "headers":
		c.Headers = e.strMap(v, key, c.Headers)
	default:
		return false
	}
	return true
}

// setKey sets m[k] = v, allocating m when it is nil.
func setKey(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = make(map[string]string)
	}
	m[k] = v
	return m
}
