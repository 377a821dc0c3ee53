// Package edit changes entries of switchboard's own config file (DESIGN.md
// F37): add, remove, enable, disable, auto-approve; and the one entry
// that starts switchboard in a client app's own file, and the app's
// switches (clients.go, DESIGN.md F59). It patches the JSONC document in
// place, so a person's comments, key order, indentation and blank lines
// survive every edit; only the entry touched changes (DESIGN.md,
// "Editing").
//
// Every edit takes an exclusive lock, reads the file, changes one entry,
// and writes the whole file to a temporary file that is renamed over the
// original, mode 0600 (internal/safefile): a reader (or a watching
// switchboard) never sees half a file, and two edits at once do not lose
// each other's change. A file that does not parse is never rewritten.
package edit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tailscale/hujson"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/internal/doc"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// ErrServerExists is returned by AddServer for a name already in the file.
var ErrServerExists = errors.New("a server with that name already exists")

// ErrNoServer is returned when the named server is not in the file.
var ErrNoServer = errors.New("no server with that name")

// EntryFields are the fields of a new server entry, in the order they are
// written.
type EntryFields struct {
	Type    config.Transport  `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// AddServer adds a server entry to the file at path, creating the file
// (and its folder) when there is none. Fields left empty are omitted.
func AddServer(path, name string, entry EntryFields) error {
	if name == "" {
		return errors.New("a server needs a name")
	}
	if (entry.Command == "") == (entry.URL == "") {
		return errors.New("a server needs exactly one of a command or a url")
	}
	return editFile(path, func(servers object) error {
		if servers.find(name) >= 0 {
			return fmt.Errorf("server %q: %w in %s", name, ErrServerExists, path)
		}
		return servers.add(name, entry)
	})
}

// AddServerJSON adds a server entry given as a JSON object, as it is
// (add-json, import). The file is written only if the result still
// reads as our config; whether the entry itself is valid is the caller's
// to check first.
func AddServerJSON(path, name string, value json.RawMessage) error {
	if name == "" {
		return errors.New("a server needs a name")
	}
	return editFile(path, func(servers object) error {
		if servers.find(name) >= 0 {
			return fmt.Errorf("server %q: %w in %s", name, ErrServerExists, path)
		}
		return servers.add(name, value)
	})
}

// RemoveServer deletes a server entry.
func RemoveServer(path, name string) error {
	return editFile(path, func(servers object) error {
		if servers.find(name) < 0 {
			return fmt.Errorf("server %q: %w in %s", name, ErrNoServer, path)
		}
		servers.remove(name)
		return nil
	})
}

// SetDisabled disables or enables a server entry. Enabling removes both
// "disabled" and "enabled": an entry is enabled by default.
func SetDisabled(path, name string, disabled bool) error {
	return editEntry(path, name, func(e object) error {
		e.remove("enabled")
		if !disabled {
			e.remove("disabled")
			return nil
		}
		return e.set("disabled", true)
	})
}

// ClaimDisabled adds {"disabled": true} under name: an entry that only
// claims the name, so a server of that name defined in another tool's
// config stays off (our file comes first).
func ClaimDisabled(path, name string) error {
	return editFile(path, func(servers object) error {
		if servers.find(name) >= 0 {
			return fmt.Errorf("server %q: %w in %s", name, ErrServerExists, path)
		}
		return servers.add(name, map[string]bool{"disabled": true})
	})
}

// IsClaim reports whether name's entry in the file only claims the name
// (no command, no url), as ClaimDisabled writes it.
func IsClaim(path, name string) (bool, error) {
	data, err := safefile.ReadLimited(path, safefile.MaxConfigSize)
	if err != nil {
		return false, err
	}
	root, err := parse(path, data)
	if err != nil {
		return false, err
	}
	servers, ok := root.child("mcpServers")
	if !ok {
		return false, nil
	}
	e, ok := servers.child(name)
	if !ok {
		return false, nil
	}
	return e.value("command") == nil && e.value("url") == nil, nil
}

// SetAutoApprove adds a tool to a server's autoApprove list, or removes it.
func SetAutoApprove(path, name, tool string, approve bool) error {
	return editEntry(path, name, func(e object) error {
		var list []string
		if v := e.value("autoApprove"); v != nil {
			if err := json.Unmarshal(standard(v), &list); err != nil {
				return fmt.Errorf("server %q in %s: autoApprove is not a list of strings", name, path)
			}
		}
		out := list[:0:0]
		for _, t := range list {
			if t != tool {
				out = append(out, t)
			}
		}
		if approve {
			out = append(out, tool)
		}
		if len(out) == 0 {
			e.remove("autoApprove")
			return nil
		}
		return e.set("autoApprove", out)
	})
}

// editEntry changes one server's entry; an error from change leaves the
// file as it was.
func editEntry(path, name string, change func(entry object) error) error {
	return editFile(path, func(servers object) error {
		if servers.find(name) < 0 {
			return fmt.Errorf("server %q: %w in %s", name, ErrNoServer, path)
		}
		e, ok := servers.child(name)
		if !ok {
			return fmt.Errorf("server %q in %s: the entry is not an object", name, path)
		}
		return change(e)
	})
}

// newFile is what an edit starts from when there is no file yet.
const newFile = "{\n  \"mcpServers\": {}\n}\n"

var utf8BOM = []byte("\xef\xbb\xbf")

// target is a JSON-family file an edit changes: where its servers are
// and how its tool reads it.
type target struct {
	// keys lead from the top level to the object of servers by name; the
	// objects on the way are made when absent.
	keys []string
	// empty is the file an edit starts from when there is none.
	empty string
	// parse reads the file as its tool does; a file it refuses is never
	// edited, and an edit it would refuse is never written.
	parse func(path string, data []byte) error
	// keepMode keeps an existing file's permissions (an app's file is the
	// person's to set); a new file, and our own, are 0600.
	keepMode bool
	// prune removes the object of servers when an edit empties it, in a
	// file that holds other settings too (Zed's, Gemini's, ~/.claude.json):
	// connecting and then disconnecting leaves the file as it was.
	prune bool
}

// native is switchboard's own file.
var native = target{
	keys:  []string{"mcpServers"},
	empty: newFile,
	parse: func(path string, data []byte) error {
		_, _, err := source.Native.Parse(source.Location{Path: path, Level: config.LevelUser}, data, source.Env{})
		return err
	},
}

// editFile runs change on our own file's mcpServers object.
func editFile(path string, change func(servers object) error) error {
	return editDoc(path, native, func(_, servers object) error { return change(servers) })
}

// editDoc runs change on the file's top level and object of servers under
// the lock and writes the result atomically.
func editDoc(path string, t target, change func(root, servers object) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	unlock, err := safefile.Lock(path)
	if err != nil {
		return err
	}
	defer unlock()

	// Read as discovery reads it (DESIGN.md, "Files"): a pipe, a device or
	// an oversized file is refused, and a dangling link is an error rather
	// than a missing file to create over the link.
	data, err := safefile.ReadLimited(path, maxSize(path))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = []byte(t.empty)
	case err != nil:
		return err
	}
	perm := fileMode(path, t.keepMode)
	bom := bytes.HasPrefix(data, utf8BOM)
	data = bytes.TrimPrefix(data, utf8BOM)
	if doc.IsBlank(data, true) {
		// Empty, or comments only: the comments stay, above the new object.
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		data = append(data, t.empty...)
	}
	root, err := parseAs(path, data, t)
	if err != nil {
		return err
	}
	servers, parents, err := root.path(t.keys)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := change(root, servers); err != nil {
		return err
	}
	if t.prune && len(servers.obj().Members) == 0 {
		// Innermost first: an object made for the servers alone goes too.
		for i := len(parents) - 1; i >= 0; i-- {
			parents[i].remove(t.keys[i])
			if i > 0 && len(parents[i].obj().Members) > 0 {
				break
			}
		}
	}
	out := root.v.Pack()
	if !bytes.HasSuffix(data, []byte("\n")) {
		out = bytes.TrimSuffix(out, []byte("\n")) // the one Terminated added
	}
	// Whatever went wrong above, a file its tool cannot read is never
	// written: the person would lose every server in it.
	if err := t.parse(path, out); err != nil {
		return fmt.Errorf("not writing %s: the edit would leave it unreadable (%v); please edit it by hand", path, err)
	}
	if bom {
		out = append(utf8BOM[:len(utf8BOM):len(utf8BOM)], out...)
	}
	return safefile.WriteAtomic(path, out, perm)
}

// fileMode is the mode an edit writes path with: 0600, or with keep the
// existing file's.
func fileMode(path string, keep bool) os.FileMode {
	if fi, err := os.Stat(path); keep && err == nil {
		return fi.Mode().Perm()
	}
	return 0o600
}

// path walks keys down from o, making the objects that are absent (or
// null), and returns the last one and the objects that hold each key.
func (o object) path(keys []string) (object, []object, error) {
	cur := o
	var parents []object
	for _, k := range keys {
		next, ok := cur.child(k)
		if !ok {
			if v := cur.value(k); v != nil && !isNull(v) {
				return object{}, nil, fmt.Errorf("%q is not an object", k)
			}
			cur.remove(k)
			if err := cur.add(k, struct{}{}); err != nil {
				return object{}, nil, err
			}
			next, _ = cur.child(k)
		}
		parents = append(parents, cur)
		cur = next
	}
	return cur, parents, nil
}

func isNull(v *hujson.Value) bool {
	lit, ok := v.Value.(hujson.Literal)
	return ok && lit.Kind() == 'n'
}

// maxSize is how much of path an edit reads: Claude Code's ~/.claude.json
// grows with its history, as discovery allows (source).
func maxSize(path string) int64 {
	if filepath.Base(path) == ".claude.json" {
		return 128 << 20
	}
	return safefile.MaxConfigSize
}

// parse reads the file as discovery would, refusing one that does not
// parse (the person's text would be lost; the error says where it is
// broken), then as a hujson tree to patch.
func parse(path string, data []byte) (object, error) { return parseAs(path, data, native) }

// parseAs is parse for a file of t's tool.
func parseAs(path string, data []byte, t target) (object, error) {
	if err := t.parse(path, data); err != nil {
		return object{}, fmt.Errorf("not editing a file that does not parse: %w", err)
	}
	root, err := hujson.Parse(doc.Terminated(data))
	if err != nil {
		return object{}, fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := root.Value.(*hujson.Object); !ok {
		return object{}, fmt.Errorf("%s: the top level is not an object", path)
	}
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	return object{v: &root, nl: nl}, nil
}

// standard is v as plain JSON.
func standard(v *hujson.Value) []byte {
	c := v.Clone()
	c.Standardize()
	return c.Pack()
}
