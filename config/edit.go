package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Editing our own native file (SPEC F37). Every edit takes an exclusive
// lock beside the file, reads it, changes one entry, and writes the whole
// file to a temporary file that is renamed over the original, mode 0600:
// a reader (or a watching switchboard) never sees half a file, and two
// edits at once do not lose each other's change. Key order is kept; the
// layout is re-indented with two spaces.

// ErrServerExists is returned by AddServer for a name already in the file.
var ErrServerExists = errors.New("a server with that name already exists")

// ErrNoServer is returned when the named server is not in the file.
var ErrNoServer = errors.New("no server with that name")

// AddServer adds a server entry to the file at path, creating the file
// (and its folder) when there is none. The entry is the server's JSON
// object as it will appear in the file; fields left empty are omitted.
func AddServer(path, name string, entry EntryFields) error {
	if name == "" {
		return errors.New("a server needs a name")
	}
	raw, err := entry.marshal()
	if err != nil {
		return err
	}
	return editFile(path, func(servers *orderedObject) error {
		if _, ok := servers.get(name); ok {
			return fmt.Errorf("server %q: %w in %s", name, ErrServerExists, path)
		}
		servers.set(name, raw)
		return nil
	})
}

// RemoveServer deletes a server entry.
func RemoveServer(path, name string) error {
	return editFile(path, func(servers *orderedObject) error {
		if !servers.remove(name) {
			return fmt.Errorf("server %q: %w in %s", name, ErrNoServer, path)
		}
		return nil
	})
}

// SetDisabled disables or enables a server entry. Enabling removes both
// "disabled" and "enabled": an entry is enabled by default.
func SetDisabled(path, name string, disabled bool) error {
	return editEntry(path, name, func(e *orderedObject) error {
		e.remove("enabled")
		if disabled {
			e.set("disabled", json.RawMessage("true"))
		} else {
			e.remove("disabled")
		}
		return nil
	})
}

// ClaimDisabled adds {"disabled": true} under name: an entry that only
// claims the name, so a server of that name defined in another tool's
// config stays off (our file comes first).
func ClaimDisabled(path, name string) error {
	return editFile(path, func(servers *orderedObject) error {
		if _, ok := servers.get(name); ok {
			return fmt.Errorf("server %q: %w in %s", name, ErrServerExists, path)
		}
		servers.set(name, json.RawMessage(`{"disabled":true}`))
		return nil
	})
}

// IsClaim reports whether name's entry in the file only claims the name
// (no command, no url), as ClaimDisabled writes it.
func IsClaim(path, name string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	top, err := parseOrdered(data)
	if err != nil {
		return false, err
	}
	raw, ok := top.get("mcpServers")
	if !ok {
		return false, nil
	}
	servers, err := parseOrdered(raw)
	if err != nil {
		return false, err
	}
	entry, ok := servers.get(name)
	if !ok {
		return false, nil
	}
	e, err := parseOrdered(entry)
	if err != nil {
		return false, nil
	}
	_, hasCommand := e.get("command")
	_, hasURL := e.get("url")
	return !hasCommand && !hasURL, nil
}

// SetAutoApprove adds a tool to a server's autoApprove list, or removes it.
func SetAutoApprove(path, name, tool string, approve bool) error {
	return editEntry(path, name, func(e *orderedObject) error {
		var list []string
		if raw, ok := e.get("autoApprove"); ok {
			if err := json.Unmarshal(raw, &list); err != nil {
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
		b, _ := json.Marshal(out)
		e.set("autoApprove", b)
		return nil
	})
}

// EntryFields are the fields of a new server entry, in the order they are
// written.
type EntryFields struct {
	Type    Transport         `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

func (e EntryFields) marshal() (json.RawMessage, error) {
	if (e.Command == "") == (e.URL == "") {
		return nil, errors.New("a server needs exactly one of a command or a url")
	}
	return json.Marshal(e)
}

// editEntry changes one server's entry; an error from change leaves the
// file as it was.
func editEntry(path, name string, change func(*orderedObject) error) error {
	return editFile(path, func(servers *orderedObject) error {
		raw, ok := servers.get(name)
		if !ok {
			return fmt.Errorf("server %q: %w in %s", name, ErrNoServer, path)
		}
		entry, err := parseOrdered(raw)
		if err != nil {
			return fmt.Errorf("server %q in %s: %w", name, path, err)
		}
		if err := change(entry); err != nil {
			return err
		}
		out, err := entry.marshal()
		if err != nil {
			return err
		}
		servers.set(name, out)
		return nil
	})
}

// editFile runs change on the file's mcpServers object under the lock and
// writes the result atomically.
func editFile(path string, change func(servers *orderedObject) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()

	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = []byte("{}")
	case err != nil:
		return err
	}
	data = bytes.TrimPrefix(data, utf8BOM) // as discovery reads it
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	// Refuse to rewrite a file that does not parse: the person's text
	// would be lost. Report where it is broken instead.
	if _, _, err := parseNativeEntries(path, data, LevelUser); err != nil {
		return fmt.Errorf("not editing a file that does not parse: %w", err)
	}
	top, err := parseOrdered(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	servers := &orderedObject{}
	if raw, ok := top.get("mcpServers"); ok && string(bytes.TrimSpace(raw)) != "null" {
		if servers, err = parseOrdered(raw); err != nil {
			return fmt.Errorf("%s: mcpServers: %w", path, err)
		}
	}
	if err := change(servers); err != nil {
		return err
	}
	raw, err := servers.marshal()
	if err != nil {
		return err
	}
	top.set("mcpServers", raw)
	out, err := top.marshal()
	if err != nil {
		return err
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out, "", "  "); err != nil {
		return err
	}
	pretty.WriteByte('\n')
	return writeFileAtomic(path, pretty.Bytes(), 0o600)
}

// orderedObject is a JSON object whose members keep their order.
type orderedObject struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseOrdered(data []byte) (*orderedObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := &orderedObject{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	return o, nil
}

func (o *orderedObject) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *orderedObject) set(k string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *orderedObject) remove(k string) bool {
	if _, ok := o.vals[k]; !ok {
		return false
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
	return true
}

func (o *orderedObject) marshal() (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
