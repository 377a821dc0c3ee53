package edit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/tailscale/hujson"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// A Client is an app that launches MCP servers from a config file of its
// own (DESIGN.md F59): where that file is, the shape of an entry, and how
// the app turns one of its servers off, if it has a way.
type Client struct {
	// ID is the provider's (source.Provider.ID): "claude-desktop".
	ID string
	// Name is the app's name as people know it.
	Name string

	provider *source.Provider
	// names are the base names of the provider's user-level files this
	// edits; nil takes any of them.
	names []string
	// create is the base name of the file made when none exists, when it
	// is not the first the app reads (opencode documents opencode.json).
	create string
	// toml: the file is Codex's config.toml, edited as text (toml.go).
	toml bool
	t    target
	// entry is the app's entry that runs command with args.
	entry func(command string, args []string) any
	// turnOff is the app's way to turn one server off in its file, or on
	// again; nil when it has none.
	turnOff switchFunc
}

// A switchFunc turns the server name off in a file's tree (off), or on
// again, as it was before it was turned off.
type switchFunc func(root, servers object, name string, off bool) error

// ErrNoSwitch is returned by SetDisabled for an app whose file has no
// way to turn one server off.
var ErrNoSwitch = errors.New("the app has no setting that turns one server off")

// member is one member of an entry, written in order.
type member struct {
	k string
	v any
}

// entryObject is an entry with its members in the order given, as the
// app's own documentation writes them.
type entryObject []member

func (e entryObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range e {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.k)
		v, err := json.Marshal(m.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func commandArgs(command string, args []string) any {
	return entryObject{{"command", command}, {"args", args}}
}

func typedStdio(command string, args []string) any {
	return entryObject{{"type", "stdio"}, {"command", command}, {"args", args}}
}

func jsonTarget(p *source.Provider, prune bool, keys ...string) target {
	return target{keys: keys, empty: emptyWith(keys), prune: prune, keepMode: true, parse: func(path string, data []byte) error {
		_, _, err := p.Parse(source.Location{Path: path, Level: config.LevelUser}, data, source.Env{})
		return err
	}}
}

// emptyWith is the smallest file with an empty object of servers at keys.
func emptyWith(keys []string) string {
	var v any = struct{}{}
	for i := len(keys) - 1; i >= 0; i-- {
		v = map[string]any{keys[i]: v}
	}
	data, _ := json.MarshalIndent(v, "", "  ")
	return string(data) + "\n"
}

// newClients lists the apps 'switchboard client' connects, in the order
// of source.All.
func newClients() []*Client {
	p := source.ByID
	cs := []*Client{
		{ID: "claude-code", names: []string{".claude.json"}, entry: typedStdio,
			t: jsonTarget(p("claude-code"), true, "mcpServers")},
		{ID: "claude-desktop", entry: commandArgs, t: jsonTarget(p("claude-desktop"), false, "mcpServers")},
		{ID: "cursor", entry: commandArgs, t: jsonTarget(p("cursor"), false, "mcpServers")},
		{ID: "vscode", names: []string{"mcp.json"}, entry: typedStdio, t: jsonTarget(p("vscode"), false, "servers")},
		{ID: "windsurf", entry: commandArgs, t: jsonTarget(p("windsurf"), false, "mcpServers"), turnOff: entrySwitch("disabled", true)},
		{ID: "codex", toml: true, turnOff: tomlSwitch},
		{ID: "gemini", entry: commandArgs, t: jsonTarget(p("gemini"), true, "mcpServers"), turnOff: geminiExclude},
		{ID: "opencode", create: "opencode.json", entry: func(command string, args []string) any {
			return entryObject{{"type", "local"}, {"command", append([]string{command}, args...)}}
		}, t: jsonTarget(p("opencode"), true, "mcp"), turnOff: entrySwitch("enabled", false)},
		{ID: "zed", entry: commandArgs, t: jsonTarget(p("zed"), true, "context_servers"), turnOff: entrySwitch("enabled", false)},
	}
	// Name and provider from the source each reads: one place says what
	// an app is called.
	for _, c := range cs {
		c.provider = p(c.ID)
		c.Name = c.provider.Name
	}
	return cs
}

var clients = newClients()

// ClientByID returns the app with that ID, or nil.
func ClientByID(id string) *Client {
	for _, c := range clients {
		if c.ID == id {
			c := *c
			return &c
		}
	}
	return nil
}

// AllClients returns every app, in order.
func AllClients() []*Client {
	out := make([]*Client, len(clients))
	for i, c := range clients {
		cc := *c
		out[i] = &cc
	}
	return out
}

// Path is the app's user-level file in env, as discovery finds it: the
// first that exists, else the first the app would read. "" with no home.
func (c *Client) Path(env source.Env) string {
	locs, _ := source.Locations(c.provider, env)
	var cands []string
	for _, l := range locs {
		if l.Level != config.LevelUser || l.Key != "" || c.names != nil && !slices.Contains(c.names, filepath.Base(l.Path)) {
			continue
		}
		cands = append(cands, l.Path)
	}
	for _, p := range cands {
		if _, err := os.Lstat(p); err == nil {
			return p
		}
	}
	if len(cands) == 0 {
		return ""
	}
	if i := slices.IndexFunc(cands, func(p string) bool { return filepath.Base(p) == c.create }); i >= 0 {
		return cands[i]
	}
	return cands[0]
}

// Entries reads the app's file as discovery does, in env (the home and
// variables the app's own references resolve from); a missing file has
// none.
func (c *Client) Entries(path string, env source.Env) ([]source.Entry, error) {
	data, err := safefile.ReadLimited(path, maxSize(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	entries, _, err := c.provider.Parse(source.Location{Path: path, Level: config.LevelUser}, data, env)
	return entries, err
}

// Connect writes the entry name that runs command with args into the
// app's file at path, creating the file (and its folder, 0700) when there
// is none. An entry of that name is replaced; changed is false when it
// was already exactly this one.
func (c *Client) Connect(path, name, command string, args []string) (changed bool, err error) {
	path = resolve(path)
	if c.toml {
		return tomlConnect(path, name, command, args)
	}
	want, err := json.Marshal(c.entry(command, args))
	if err != nil {
		return false, err
	}
	err = editDoc(path, c.t, func(_, servers object) error {
		if v := servers.value(name); v != nil && bytes.Equal(compact(v), want) {
			return errUnchanged
		}
		changed = true
		return servers.set(name, json.RawMessage(want))
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return changed, err
}

// errUnchanged ends an edit that has nothing to write.
var errUnchanged = errors.New("unchanged")

// Disconnect removes the entry name; changed is false when there was none.
func (c *Client) Disconnect(path, name string) (changed bool, err error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	path = resolve(path)
	if c.toml {
		return tomlRemove(path, name)
	}
	err = editDoc(path, c.t, func(_, servers object) error {
		if servers.find(name) < 0 {
			return errUnchanged
		}
		changed = true
		servers.remove(name)
		return nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return changed, err
}

// SetDisabled turns the app's server name off, or back on, by the app's
// own switch; on again removes what turning it off wrote. ErrNoSwitch
// when the app has none.
func (c *Client) SetDisabled(path, name string, disabled bool) error {
	if c.turnOff == nil {
		return fmt.Errorf("%s: %w", c.Name, ErrNoSwitch)
	}
	path = resolve(path)
	if c.toml {
		return tomlSetEnabled(path, name, !disabled)
	}
	return editDoc(path, c.t, func(root, servers object) error {
		if servers.find(name) < 0 {
			return fmt.Errorf("server %q: %w in %s", name, ErrNoServer, path)
		}
		return c.turnOff(root, servers, name, disabled)
	})
}

// HasSwitch reports whether the app can turn one server off in its file.
func (c *Client) HasSwitch() bool { return c.turnOff != nil }

// entrySwitch is a member of the entry: Windsurf's "disabled": true,
// Zed's and opencode's "enabled": false. On again removes it: on is the
// default.
func entrySwitch(key string, offValue bool) switchFunc {
	return func(_, servers object, name string, off bool) error {
		e, ok := servers.child(name)
		if !ok {
			return fmt.Errorf("server %q: the entry is not an object", name)
		}
		if !off {
			e.remove(key)
			return nil
		}
		return e.set(key, offValue)
	}
}

// tomlSwitch stands for Codex's enabled = false, which toml.go writes.
func tomlSwitch(object, object, string, bool) error { return nil }

// geminiExclude adds the name to Gemini CLI's list of servers it does not
// start, "mcp": {"excluded": […]} (or the version 1 "excludeMCPServers"
// where only that is there), or takes it out again; an emptied list goes,
// and so does an emptied "mcp".
func geminiExclude(root, _ object, name string, off bool) error {
	holder, key := root, "excludeMCPServers"
	mcp, hasMCP := root.child("mcp")
	if hasMCP && mcp.value("excluded") != nil || root.value(key) == nil {
		if !hasMCP {
			if !off {
				return nil
			}
			if err := root.add("mcp", struct{}{}); err != nil {
				return err
			}
			mcp, _ = root.child("mcp")
		}
		holder, key = mcp, "excluded"
	}
	var list []string
	if v := holder.value(key); v != nil {
		if err := json.Unmarshal(standard(v), &list); err != nil {
			return fmt.Errorf("Gemini CLI's %q is not a list of server names", key)
		}
	}
	has := slices.Contains(list, name)
	switch {
	case off && !has:
		list = append(list, name)
	case !off && has:
		list = slices.DeleteFunc(list, func(n string) bool { return n == name })
	default:
		return nil
	}
	if len(list) > 0 {
		return holder.set(key, list)
	}
	holder.remove(key)
	if key == "excluded" && len(holder.obj().Members) == 0 {
		root.remove("mcp")
	}
	return nil
}

// resolve follows a link to the file it names, so that a config kept in
// a dotfiles repository stays a link and its target changes. A dangling
// link is left for the read to refuse.
func resolve(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// compact is v as plain JSON without spaces.
func compact(v *hujson.Value) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, standard(v)); err != nil {
		return nil
	}
	return b.Bytes()
}
