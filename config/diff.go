package config

import (
	"maps"
	"reflect"
	"slices"
)

// Diff says how a new list of server configs differs from an old one, by
// name (DESIGN.md F35). Each list keeps the order of the configs it came from.
type Diff struct {
	// Added are names only in the new list.
	Added []string `json:"added,omitempty"`
	// Removed are names only in the old list.
	Removed []string `json:"removed,omitempty"`
	// Changed are servers whose connection changed: they must restart.
	Changed []string `json:"changed,omitempty"`
	// Updated are servers whose metadata only changed (auto-approve,
	// request timeout, tool filters, the file that defines them): applied
	// in place.
	Updated []string `json:"updated,omitempty"`
	// Moved are servers whose entry only moved within its file: an edit
	// above it added or removed lines. Nothing of theirs changed but the
	// line (of the entry, and of its error); the host takes the new
	// position in place, and Empty does not count them.
	Moved []string `json:"moved,omitempty"`
	// Unchanged are servers identical in both lists.
	Unchanged []string `json:"unchanged,omitempty"`
}

// Empty reports whether no server was added, removed, changed or updated.
// A diff of moved entries alone is empty: nothing a person would notice.
func (d Diff) Empty() bool {
	return len(d.Added)+len(d.Removed)+len(d.Changed)+len(d.Updated) == 0
}

// DiffConfigs compares two lists of server configs.
func DiffConfigs(old, new []ServerConfig) Diff {
	var d Diff
	before := make(map[string]*ServerConfig, len(old))
	for i := range old {
		before[old[i].Name] = &old[i]
	}
	seen := make(map[string]bool, len(new))
	for i := range new {
		c := &new[i]
		seen[c.Name] = true
		o, ok := before[c.Name]
		switch {
		case !ok:
			d.Added = append(d.Added, c.Name)
		case !o.SameConnection(c):
			d.Changed = append(d.Changed, c.Name)
		case !o.sameMetadata(c):
			d.Updated = append(d.Updated, c.Name)
		case o.Source != c.Source || errString(o.Err) != errString(c.Err):
			d.Moved = append(d.Moved, c.Name)
		default:
			d.Unchanged = append(d.Unchanged, c.Name)
		}
	}
	for i := range old {
		if !seen[old[i].Name] {
			d.Removed = append(d.Removed, old[i].Name)
		}
	}
	return d
}

// SameConnection reports whether two configs connect to the same server in
// the same way, so a live connection made for one serves the other. It
// covers everything that reaches the transport or decides whether the
// server may start at all.
func (c *ServerConfig) SameConnection(o *ServerConfig) bool {
	return c.Type == o.Type && c.Command == o.Command && slices.Equal(c.Args, o.Args) &&
		maps.Equal(c.Env, o.Env) && c.Cwd == o.Cwd && c.URL == o.URL && maps.Equal(c.Headers, o.Headers) &&
		c.Disabled == o.Disabled && c.Lazy == o.Lazy &&
		c.StartupTimeout == o.StartupTimeout && c.PingInterval == o.PingInterval && c.WorkDir == o.WorkDir &&
		c.MaxMessageSize == o.MaxMessageSize && c.ProtocolVersion == o.ProtocolVersion && reflect.DeepEqual(c.OAuth, o.OAuth) &&
		c.Untrusted == o.Untrusted && c.Blocked == o.Blocked && c.DuplicateOf == o.DuplicateOf &&
		sameError(c.Err, o.Err) && c.Source.Level == o.Source.Level
}

// sameMetadata compares what SameConnection leaves out, but for the line
// the entry starts on: one server's entry growing by a line moves every
// entry below it, which is no change of theirs.
func (c *ServerConfig) sameMetadata(o *ServerConfig) bool {
	return slices.Equal(c.AutoApprove, o.AutoApprove) && c.Timeout == o.Timeout && c.AlwaysLoad == o.AlwaysLoad &&
		slices.Equal(c.Tools.Allow, o.Tools.Allow) && slices.Equal(c.Tools.Deny, o.Tools.Deny) &&
		c.Source.Provider == o.Source.Provider && c.Source.Path == o.Source.Path
}

// sameError reports whether two entry errors are the same but for where
// they are: a server whose entry moved down its file still fails for the
// same reason, at another line.
func sameError(a, b error) bool {
	da, okA := a.(*Diagnostic)
	db, okB := b.(*Diagnostic)
	if okA && okB {
		ca, cb := *da, *db
		ca.Line, ca.Column, cb.Line, cb.Column = 0, 0, 0, 0
		return ca.Error() == cb.Error()
	}
	return errString(a) == errString(b)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
