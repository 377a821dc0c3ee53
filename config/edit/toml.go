package edit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/source"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// Codex's config.toml is edited as text, one [mcp_servers.NAME] table at a
// time: no TOML library here writes a document back with its comments and
// layout, and a table is lines a person can see the ends of. An entry
// Codex would read but that is not such a table (an inline table, dotted
// keys) is left to the person, with an error that says so. Every result
// is read back as Codex reads it before it is written.

// tomlHeader matches a table header line and captures its dotted name.
var tomlHeader = regexp.MustCompile(`^[ \t]*\[[ \t]*([^\[\]]+?)[ \t]*\][ \t]*(#.*)?\r?$`)

// tomlTable is the byte range of [mcp_servers.NAME] and its subtables, up
// to the next other header or the end of the file, and where its first
// line ends.
type tomlTable struct{ start, headEnd, end int }

// findTable finds name's table in data; ok is false when there is none.
func findTable(data []byte, name string) (t tomlTable, ok bool) {
	t.start = -1
	off := 0
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if m := tomlHeader.FindSubmatch(bytes.TrimSuffix(line, []byte("\n"))); m != nil {
			parts := tomlKeyParts(string(m[1]))
			mine := len(parts) >= 2 && parts[0] == "mcp_servers" && parts[1] == name
			switch {
			case t.start < 0 && mine && len(parts) == 2:
				t.start, t.headEnd = off, off+len(line)
			case t.start >= 0 && !mine:
				t.end = off
				return t, true
			}
		}
		off += len(line)
	}
	t.end = len(data)
	return t, t.start >= 0
}

// tomlKeyParts splits a dotted key, unquoting each part: mcp_servers."a.b".
func tomlKeyParts(key string) []string {
	var parts []string
	for key != "" {
		key = strings.TrimLeft(key, " \t")
		var part string
		switch {
		case strings.HasPrefix(key, `"`), strings.HasPrefix(key, `'`):
			q := key[:1]
			end := strings.Index(key[1:], q)
			if end < 0 {
				return nil
			}
			part, key = key[1:1+end], key[2+end:]
		default:
			end := strings.IndexByte(key, '.')
			if end < 0 {
				end = len(key)
			}
			part, key = strings.TrimRight(key[:end], " \t"), key[end:]
		}
		parts = append(parts, part)
		key = strings.TrimLeft(key, " \t")
		key = strings.TrimPrefix(key, ".")
	}
	return parts
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var tomlBareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func tomlKey(name string) string {
	if tomlBareKey.MatchString(name) {
		return name
	}
	return tomlString(name)
}

// tomlEdit reads the file under the lock, lets change rewrite it, checks
// the result reads as Codex reads it, and writes it in one step.
func tomlEdit(path, name string, change func(data []byte, entries []source.Entry) ([]byte, error)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	unlock, err := safefile.Lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := safefile.ReadLimited(path, safefile.MaxConfigSize)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	codex := source.ByID("codex")
	loc := source.Location{Path: path, Level: config.LevelUser}
	entries, _, err := codex.Parse(loc, data, source.Env{})
	if err != nil {
		return fmt.Errorf("not editing a file that does not parse: %w", err)
	}
	out, err := change(data, entries)
	if err != nil {
		return err
	}
	after, _, err := codex.Parse(loc, out, source.Env{})
	if err != nil {
		return fmt.Errorf("not writing %s: the edit would leave it unreadable (%v); please edit it by hand", path, err)
	}
	if !sameOthers(entries, after, name) {
		// A header inside a multi-line string, say: the text was not what
		// it looked like line by line.
		return fmt.Errorf("not writing %s: the edit would change servers other than %q; please edit it by hand", path, name)
	}
	return safefile.WriteAtomic(path, out, fileMode(path, true))
}

// sameOthers reports whether before and after define the same servers,
// but for name, each the same.
func sameOthers(before, after []source.Entry, name string) bool {
	others := func(entries []source.Entry) map[string]string {
		m := map[string]string{}
		for _, e := range entries {
			if e.Config.Name != name {
				c := e.Config
				c.Source = config.Source{} // lines move
				data, _ := json.Marshal(c)
				m[c.Name] = fmt.Sprint(string(data), c.Err)
			}
		}
		return m
	}
	a, b := others(before), others(after)
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// tomlFind is name's table, or an error when Codex has name but not as a
// table this edits.
func tomlFind(path string, data []byte, entries []source.Entry, name string) (tomlTable, bool, error) {
	t, ok := findTable(data, name)
	if !ok && slices.ContainsFunc(entries, func(e source.Entry) bool { return e.Config.Name == name }) {
		return t, false, fmt.Errorf("server %q in %s is not written as a [mcp_servers.%s] table; please edit it by hand", name, path, tomlKey(name))
	}
	return t, ok, nil
}

func tomlConnect(path, name, command string, args []string) (changed bool, err error) {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = tomlString(a)
	}
	body := "command = " + tomlString(command) + "\nargs = [" + strings.Join(quoted, ", ") + "]\n"
	err = tomlEdit(path, name, func(data []byte, entries []source.Entry) ([]byte, error) {
		t, ok, err := tomlFind(path, data, entries, name)
		if err != nil {
			return nil, err
		}
		if ok {
			for _, e := range entries {
				if e.Config.Name == name && e.Config.Command == command && slices.Equal(e.Config.Args, args) {
					return nil, errUnchanged
				}
			}
			data = removeTable(data, t)
		}
		changed = true
		block := "[mcp_servers." + tomlKey(name) + "]\n" + body
		switch {
		case len(data) == 0:
		case data[len(data)-1] == '\n':
			block = "\n" + block
		default:
			// No line break at the end: none after ours either, so that
			// disconnecting gives the same bytes back.
			block = "\n\n" + strings.TrimSuffix(block, "\n")
		}
		return append(slices.Clip(data), block...), nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return changed, err
}

// removeTable cuts t out of data; the last table takes the blank line
// before it (and the line break, when the file ends without one), as
// tomlConnect wrote it.
func removeTable(data []byte, t tomlTable) []byte {
	start := t.start
	if t.end == len(data) {
		if start >= 2 && data[start-1] == '\n' && data[start-2] == '\n' {
			start--
		}
		if t.end > t.start && data[t.end-1] != '\n' && start > 0 && data[start-1] == '\n' {
			start--
		}
	}
	return append(slices.Clip(data[:start]), data[t.end:]...)
}

func tomlRemove(path, name string) (changed bool, err error) {
	err = tomlEdit(path, name, func(data []byte, entries []source.Entry) ([]byte, error) {
		t, ok, err := tomlFind(path, data, entries, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errUnchanged
		}
		changed = true
		return removeTable(data, t), nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return changed, err
}

var tomlEnabledLine = regexp.MustCompile(`(?m)^[ \t]*enabled[ \t]*=.*\n?`)

// tomlSetEnabled writes "enabled = false" as the table's first line, or
// removes the table's enabled line to turn it on again (Codex's default).
func tomlSetEnabled(path, name string, enabled bool) error {
	return tomlEdit(path, name, func(data []byte, entries []source.Entry) ([]byte, error) {
		t, ok, err := tomlFind(path, data, entries, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("server %q: %w in %s", name, ErrNoServer, path)
		}
		// The table's own lines, before a subtable of it.
		own := t.end
		if i := bytes.Index(data[t.headEnd:t.end], []byte("\n[")); i >= 0 {
			own = t.headEnd + i + 1
		}
		body := data[t.headEnd:own]
		var out []byte
		out = append(out, data[:t.headEnd]...)
		if !enabled && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		if !enabled {
			out = append(out, "enabled = false\n"...)
		}
		out = append(out, tomlEnabledLine.ReplaceAll(body, nil)...)
		return append(out, data[own:]...), nil
	})
}
