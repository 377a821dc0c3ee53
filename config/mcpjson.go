package config

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// This file holds what the JSON-family adapters share: reading a JSON or
// JSONC file into a positioned tree, and decoding the "mcpServers"-style
// entry (command, args, env, url, headers, …) that most tools copied from
// Claude Desktop, with each tool's variations described by a dialect.

// jsonDoc is one JSON config file being decoded.
type jsonDoc struct {
	loc      Location
	provider string
	lines    lineTable
	root     *jsonValue // nil for an empty file
	warnings []*Diagnostic
}

// parseJSONDoc reads a config file. With jsonc, comments and trailing
// commas are allowed. An empty file has a nil root; a file that is not JSON
// or whose top level is not an object is an error positioned in it.
func parseJSONDoc(provider string, loc Location, data []byte, jsonc bool) (*jsonDoc, error) {
	// A byte order mark is dropped as in ParseNative.
	data = bytes.TrimPrefix(data, utf8BOM)
	if jsonc {
		data = blankJSONComments(data)
	}
	doc := &jsonDoc{loc: loc, provider: provider, lines: newLineTable(data)}
	if isJSONBlank(data) {
		return doc, nil
	}
	root, err := parseJSON(data)
	if err != nil {
		var pe *positionError
		if !errors.As(err, &pe) {
			pe = &positionError{msg: err.Error()}
		}
		return nil, doc.lines.diag(loc.Path, pe.off, "", "", pe.msg)
	}
	if root.kind != jsonObject {
		return nil, doc.lines.diag(loc.Path, root.off, "", "", fmt.Sprintf("top level must be an object, got %s", root.kind))
	}
	doc.root = root
	return doc, nil
}

// object returns the object under key in v, or nil when it is absent or
// null. Anything else is a whole-file error: the file does not hold what
// the tool would read from it.
func (d *jsonDoc) object(v *jsonValue, key, what string) (*jsonValue, error) {
	if v == nil {
		return nil, nil
	}
	o := v.member(key)
	if o == nil || o.kind == jsonNull {
		return nil, nil
	}
	if o.kind != jsonObject {
		return nil, d.lines.diag(d.loc.Path, o.off, "", key, fmt.Sprintf("want an object of %s, got %s", what, o.kind))
	}
	return o, nil
}

func (d *jsonDoc) warn(v *jsonValue, server, field, msg string) {
	d.warnings = append(d.warnings, d.lines.diag(d.loc.Path, v.off, server, field, msg))
}

// decodeServers decodes each member of obj, an object of server configs by
// name, in file order. A name defined twice keeps both entries, the second
// with an Err, as ParseNative does.
func (d *jsonDoc) decodeServers(obj *jsonValue, decode func(e *entry, v *jsonValue)) []ServerConfig {
	if obj == nil {
		return nil
	}
	var servers []ServerConfig
	firstLine := make(map[string]int)
	for _, m := range obj.members {
		line, _ := d.lines.pos(m.off)
		c := ServerConfig{
			Name:   m.key,
			Source: Source{Provider: d.provider, Path: d.loc.Path, Level: d.loc.Level, Line: line},
		}
		e := &entry{doc: d, c: &c}
		if m.val.kind != jsonObject {
			e.fail(m.val, "", fmt.Sprintf("want an object, got %s", m.val.kind))
		} else {
			decode(e, m.val)
		}
		if first, dup := firstLine[m.key]; dup {
			e.err = d.lines.diag(d.loc.Path, m.off, m.key, "", fmt.Sprintf("server defined twice; the first definition, at line %d, wins", first))
		} else {
			firstLine[m.key] = line
		}
		if e.err != nil {
			c.Err = e.err
		}
		servers = append(servers, c)
	}
	return servers
}

// entry is one server entry being decoded. A problem with a field that
// decides what runs or where it connects makes the server unusable (err);
// a problem with a switch that has a safe default is a warning and the
// field is ignored.
type entry struct {
	doc *jsonDoc
	c   *ServerConfig
	err *Diagnostic
}

func (e *entry) fail(v *jsonValue, field, msg string) {
	if e.err == nil {
		e.err = e.doc.lines.diag(e.doc.loc.Path, v.off, e.c.Name, field, msg)
	}
}

// wrong reports a value of the wrong type.
func (e *entry) wrong(v *jsonValue, field, want string, essential bool) {
	msg := fmt.Sprintf("want %s, got %s", want, v.kind)
	if essential {
		e.fail(v, field, msg)
		return
	}
	e.doc.warn(v, e.c.Name, field, msg+"; ignored")
}

func (e *entry) str(v *jsonValue, field string, essential bool) (string, bool) {
	if v.kind != jsonString {
		e.wrong(v, field, "a string", essential)
		return "", false
	}
	return v.str, true
}

func (e *entry) boolean(v *jsonValue, field string, essential bool) (bool, bool) {
	if v.kind != jsonBool {
		e.wrong(v, field, "true or false", essential)
		return false, false
	}
	return v.b, true
}

func (e *entry) number(v *jsonValue, field string, essential bool) (float64, bool) {
	if v.kind != jsonNumber {
		e.wrong(v, field, "a number", essential)
		return 0, false
	}
	f, err := strconv.ParseFloat(v.str, 64)
	if err != nil || math.IsInf(f, 0) {
		e.wrong(v, field, "a number in range", essential)
		return 0, false
	}
	return f, true
}

// strList reads an array of strings; an empty array is nil.
func (e *entry) strList(v *jsonValue, field string, essential bool) []string {
	if v.kind != jsonArray {
		e.wrong(v, field, "an array of strings", essential)
		return nil
	}
	var out []string
	for i, el := range v.elems {
		if el.kind != jsonString {
			e.wrong(el, fmt.Sprintf("%s[%d]", field, i), "a string", essential)
			if essential {
				return nil
			}
			continue
		}
		out = append(out, el.str)
	}
	return out
}

// strMap reads an object of strings; an empty object is nil. Numbers and
// booleans are taken as their text (VS Code allows them in env), and null
// values are left out.
func (e *entry) strMap(v *jsonValue, field string, essential bool) map[string]string {
	if v.kind != jsonObject {
		e.wrong(v, field, "an object of strings", essential)
		return nil
	}
	var out map[string]string
	for _, m := range v.members {
		var s string
		switch m.val.kind {
		case jsonString, jsonNumber:
			s = m.val.str
		case jsonBool:
			s = strconv.FormatBool(m.val.b)
		case jsonNull:
			continue
		default:
			e.wrong(m.val, field+"."+m.key, "a string", essential)
			if essential {
				return nil
			}
			continue
		}
		if out == nil {
			out = make(map[string]string)
		}
		out[m.key] = s
	}
	return out
}

// duration reads a number of unit as a duration (a "timeout" of 60 in a
// tool that counts seconds). Out of range values are a warning: the
// default stands.
func (e *entry) duration(v *jsonValue, field string, unit time.Duration) time.Duration {
	f, ok := e.number(v, field, false)
	if !ok {
		return 0
	}
	d := time.Duration(f * float64(unit))
	if f <= 0 || f*float64(unit) > float64(MaxTimeout) {
		e.doc.warn(v, e.c.Name, field, fmt.Sprintf("%s %s is out of range (want more than 0 and at most %s); ignored", field, clip(v.str), MaxTimeout))
		return 0
	}
	return d
}

// transportNames are the spellings of a transport type the JSON-family
// tools use, lower-cased.
var transportNames = map[string]Transport{
	"stdio":           TransportStdio,
	"local":           TransportStdio,
	"http":            TransportHTTP,
	"streamable-http": TransportHTTP,
	"streamablehttp":  TransportHTTP,
	"streamable_http": TransportHTTP,
	"streamable":      TransportHTTP,
	"remote":          TransportAuto,
	"sse":             TransportSSE,
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
	urlNoType Transport
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
	extra func(e *entry, key string, v *jsonValue) bool
}

type urlKey struct {
	key       string
	transport Transport
}

// decode fills e.c from one entry object.
func (dl *dialect) decode(e *entry, v *jsonValue) {
	c := e.c
	var typeVal, urlVal *jsonValue
	typeKey, uk := "", urlKey{}
	for _, m := range v.members {
		val := m.val
		if val.kind == jsonNull {
			continue
		}
		switch key := m.key; {
		case key == "command":
			c.Command, _ = e.str(val, key, true)
		case key == "args":
			c.Args = e.strList(val, key, true)
		case key == "env":
			c.Env = e.strMap(val, key, true)
		case key == "headers":
			c.Headers = e.strMap(val, key, true)
		case key == "cwd" && dl.cwd:
			c.Cwd, _ = e.str(val, key, true)
		case key == "disabled" && dl.disabled:
			if b, ok := e.boolean(val, key, true); ok {
				c.Disabled = b
			}
		case key == dl.autoApprove && key != "":
			c.AutoApprove = e.strList(val, key, false)
		case key == dl.disabledTools && key != "":
			c.Tools.Deny = e.strList(val, key, true)
		case key == "timeout" && dl.timeout > 0:
			c.Timeout = e.duration(val, key, dl.timeout)
		case dl.isTypeKey(key):
			if typeVal == nil || dl.typeRank(key) < dl.typeRank(typeKey) {
				typeVal, typeKey = val, key
			}
		case dl.urlKey(key) != nil:
			k := dl.urlKey(key)
			if urlVal == nil || dl.urlRank(key) < dl.urlRank(uk.key) {
				urlVal, uk = val, *k
			}
		default:
			if dl.extra != nil {
				dl.extra(e, key, val)
			}
		}
	}
	if typeVal != nil {
		if s, ok := e.str(typeVal, typeKey, true); ok {
			t, known := transportNames[strings.ToLower(s)]
			if !known {
				e.fail(typeVal, typeKey, fmt.Sprintf("unknown type %q (want stdio, http or sse)", clip(s)))
			}
			c.Type = t
		}
	}
	if urlVal != nil {
		c.URL, _ = e.str(urlVal, uk.key, true)
		switch {
		case uk.transport != TransportAuto && (typeVal == nil || c.Type == TransportAuto):
			c.Type = uk.transport
		case typeVal == nil:
			c.Type = dl.urlNoType
		}
	}
}

func (dl *dialect) isTypeKey(key string) bool { return dl.typeRank(key) >= 0 }

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

func (dl *dialect) urlKey(key string) *urlKey {
	if i := dl.urlRank(key); i >= 0 {
		return &dl.keys()[i]
	}
	return nil
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

// parseMCPServers is Provider.Parse for a tool whose file is an object
// with the servers under key, decoded by dl, with rewrite (if any) applied
// to each server's strings for the tool's own variables.
func parseMCPServers(provider string, loc Location, data []byte, key string, jsonc bool, dl *dialect, rewrite func(string) (string, error)) ([]ServerConfig, []*Diagnostic, error) {
	doc, err := parseJSONDoc(provider, loc, data, jsonc)
	if err != nil {
		return nil, nil, err
	}
	obj, err := doc.object(doc.root, key, "server configs by name")
	if err != nil {
		return nil, nil, err
	}
	servers := doc.decodeServers(obj, dl.decode)
	if rewrite != nil {
		rewriteAll(servers, rewrite)
	}
	return servers, doc.warnings, nil
}

// rewriteAll applies rewrite to the strings of every server without Err.
func rewriteAll(servers []ServerConfig, rewrite func(string) (string, error)) {
	for i := range servers {
		if servers[i].Err == nil {
			if err := rewriteStrings(&servers[i], rewrite); err != nil {
				servers[i].Err = err
			}
		}
	}
}

// rewriteStrings applies fn to every string Substitute would expand:
// command, args, env values, cwd, url and header values. It is how an
// adapter translates its tool's own variables (VS Code's
// ${workspaceFolder}) before discovery substitutes the common ones. On
// failure it returns a *Diagnostic naming the field and leaves c alone.
func rewriteStrings(c *ServerConfig, fn func(string) (string, error)) error {
	fail := func(field string, err error) error {
		return &Diagnostic{Path: c.Source.Path, Line: c.Source.Line, Server: c.Name, Field: field, Message: err.Error(), Err: err}
	}
	out := *c
	var err error
	if out.Command, err = fn(c.Command); err != nil {
		return fail("command", err)
	}
	out.Args = nil
	for i, a := range c.Args {
		v, err := fn(a)
		if err != nil {
			return fail(fmt.Sprintf("args[%d]", i), err)
		}
		out.Args = append(out.Args, v)
	}
	if out.Cwd, err = fn(c.Cwd); err != nil {
		return fail("cwd", err)
	}
	if out.URL, err = fn(c.URL); err != nil {
		return fail("url", err)
	}
	for _, m := range []struct {
		field string
		src   map[string]string
		dst   *map[string]string
	}{{"env", c.Env, &out.Env}, {"headers", c.Headers, &out.Headers}} {
		if m.src == nil {
			continue
		}
		*m.dst = make(map[string]string, len(m.src))
		// In key order, so an error always names the same field.
		for _, k := range slices.Sorted(maps.Keys(m.src)) {
			v := m.src[k]
			nv, err := fn(v)
			if err != nil {
				return fail(m.field+"."+k, err)
			}
			(*m.dst)[k] = nv
		}
	}
	*c = out
	return nil
}

// editorVariables returns a rewrite for the variables VS Code and Cursor
// resolve themselves: ${workspaceFolder}, ${workspaceFolderBasename},
// ${userHome}, ${pathSeparator} and ${/}. ${input:…} asks the person in
// the editor's UI, which a host without one cannot do: it is an error that
// says so. ${env:NAME} and the rest are left for discovery's substitution.
func editorVariables(tool string, env Env) func(string) (string, error) {
	return func(s string) (string, error) {
		if !strings.Contains(s, "${") {
			return s, nil
		}
		if i := strings.Index(s, "${input:"); i >= 0 {
			ref := s[i:]
			if j := strings.IndexByte(ref, '}'); j >= 0 {
				ref = ref[:j+1]
			}
			return "", fmt.Errorf("%s input variables like %q are not supported: switchboard cannot prompt for them; put the value in an environment variable and use ${env:NAME}", tool, clip(ref))
		}
		for _, name := range []string{"${workspaceFolder}", "${workspaceFolderBasename}"} {
			if strings.Contains(s, name) && env.ProjectDir == "" {
				return "", fmt.Errorf("%s needs a project directory, and there is none", name)
			}
		}
		return strings.NewReplacer(
			"${workspaceFolder}", env.ProjectDir,
			"${workspaceFolderBasename}", filepath.Base(env.ProjectDir),
			"${userHome}", env.Home,
			"${pathSeparator}", string(filepath.Separator),
			"${/}", string(filepath.Separator),
		).Replace(s), nil
	}
}

// bareVariables rewrites the shell-style "$NAME" that Gemini CLI and Crush
// accept into "${NAME}", which discovery's substitution knows. "$$" and
// "${…}" are left as they are.
func bareVariables(s string) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		next := s[i+1]
		switch {
		case next == '$':
			b.WriteString("$$")
			i++
		case isNameByte(next, true):
			j := i + 1
			for j < len(s) && isNameByte(s[j], false) {
				j++
			}
			b.WriteString("${" + s[i+1:j] + "}")
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// nameIs reports whether path ends in the given slash-separated suffix,
// as "/.cursor/mcp.json", for Sniff.
func nameIs(path string, suffixes ...string) bool {
	p := filepath.ToSlash(path)
	for _, s := range suffixes {
		if strings.HasSuffix(p, s) || (strings.HasPrefix(s, "/") && p == s[1:]) {
			return true
		}
	}
	return false
}

// topLevelKey reports whether data is a JSON (or JSONC) object with key at
// its top level, for Sniff.
func topLevelKey(data []byte, key string) bool {
	if data == nil {
		return false
	}
	root, err := parseJSON(blankJSONComments(bytes.TrimPrefix(data, utf8BOM)))
	if err != nil || root.kind != jsonObject {
		return false
	}
	return root.member(key) != nil
}

// entriesHaveKey reports whether any entry under servers in data has key,
// for Sniff: a "serverUrl" says Windsurf.
func entriesHaveKey(data []byte, servers, key string) bool {
	if data == nil {
		return false
	}
	root, err := parseJSON(blankJSONComments(bytes.TrimPrefix(data, utf8BOM)))
	if err != nil || root.kind != jsonObject {
		return false
	}
	obj := root.member(servers)
	if obj == nil || obj.kind != jsonObject {
		return false
	}
	for _, m := range obj.members {
		if m.val.kind == jsonObject && m.val.member(key) != nil {
			return true
		}
	}
	return false
}

// configHome is $XDG_CONFIG_HOME, or ~/.config.
func (e Env) configHome() string {
	if v, ok := e.lookup("XDG_CONFIG_HOME"); ok && filepath.IsAbs(v) {
		return v
	}
	return filepath.Join(e.Home, ".config")
}

// appSupport is where desktop apps keep their files: ~/.config on Linux,
// ~/Library/Application Support on macOS.
func (e Env) appSupport() string {
	if e.goos() == "darwin" {
		return filepath.Join(e.Home, "Library", "Application Support")
	}
	return e.configHome()
}

// projectAndUser lists a project-level file (when there is a project) and
// a user-level one (when there is a home), in that order.
func projectAndUser(env Env, project, user string) []Location {
	var locs []Location
	if env.ProjectDir != "" && project != "" {
		locs = append(locs, Location{Path: filepath.Join(env.ProjectDir, project), Level: LevelProject})
	}
	if env.Home != "" && user != "" {
		locs = append(locs, Location{Path: user, Level: LevelUser})
	}
	return locs
}
