package config

import (
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
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
	// request timeout, tool filters, the file that defines them, a
	// WorkDir the running server does not depend on: DependsOnWorkDir):
	// applied in place.
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
// the same way, so a live connection made for c serves o, the newer. It
// covers everything that reaches the transport or decides whether the
// server may start at all.
func (c *ServerConfig) SameConnection(o *ServerConfig) bool {
	return c.Type == o.Type && c.Command == o.Command && slices.Equal(c.Args, o.Args) &&
		maps.Equal(c.Env, o.Env) && c.Cwd == o.Cwd && c.URL == o.URL && maps.Equal(c.Headers, o.Headers) &&
		c.Disabled == o.Disabled && c.Lazy == o.Lazy &&
		c.StartupTimeout == o.StartupTimeout && c.PingInterval == o.PingInterval && (c.WorkDir == o.WorkDir || !c.DependsOnWorkDir() && !leavesTrust(c, o)) &&
		c.MaxMessageSize == o.MaxMessageSize && c.ProtocolVersion == o.ProtocolVersion && reflect.DeepEqual(c.OAuth, o.OAuth) &&
		c.Untrusted == o.Untrusted && c.Blocked == o.Blocked && c.DuplicateOf == o.DuplicateOf &&
		sameError(c.Err, o.Err) && c.Source.Level == o.Source.Level
}

// leavesTrust reports whether a server that ran in a trusted project
// (old) no longer may (new): the running server must not stay there.
// Trust granted is no hurry: a server takes the project at its next start.
func leavesTrust(old, new *ServerConfig) bool {
	return old.WorkDirTrusted && !new.WorkDirTrusted && !old.ignoresWorkDir()
}

// sameMetadata compares what SameConnection leaves out, but for the line
// the entry starts on: one server's entry growing by a line moves every
// entry below it, which is no change of theirs.
func (c *ServerConfig) sameMetadata(o *ServerConfig) bool {
	return slices.Equal(c.AutoApprove, o.AutoApprove) && c.Timeout == o.Timeout && c.AlwaysLoad == o.AlwaysLoad &&
		(c.PinTools == nil) == (o.PinTools == nil) && (c.PinTools == nil || *c.PinTools == *o.PinTools) &&
		(c.WorkDir == o.WorkDir || c.ignoresWorkDir()) &&
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

// DependsOnWorkDir reports whether a change of WorkDir (trust decided
// otherwise: DESIGN.md, "Trust") must restart the server: it is a stdio
// server without an absolute cwd whose cwd, command or args name a path
// relative to where it runs ("." or "build/index.js" as an argument,
// "--data=./data", "./server"), or whose env does ("./db.sqlite"). A
// server with an absolute cwd never sees WorkDir; any other keeps running
// where it started and takes the new WorkDir at its next start.
func (c *ServerConfig) DependsOnWorkDir() bool {
	if c.ignoresWorkDir() {
		return false
	}
	if c.Cwd != "" || relativePath(c.Command, false) {
		return true
	}
	for _, a := range c.Args {
		if relativePath(a, false) {
			return true
		}
	}
	for _, v := range c.Env {
		if relativePath(v, true) {
			return true
		}
	}
	return false
}

// ignoresWorkDir reports whether WorkDir reaches nothing: a remote server,
// or a stdio one whose cwd is absolute.
func (c *ServerConfig) ignoresWorkDir() bool {
	return c.TransportKind() != TransportStdio || filepath.IsAbs(c.Cwd)
}

// relativePath reports whether s reads as a path relative to the working
// directory: ".", "..", "./x" or "../x"; and, for an argument that is no
// flag (dotted false), any name with a slash that is neither absolute,
// nor a URL, nor an npm package (@scope/name). A flag's value
// ("--tz=Europe/Oslo") and an env value are held to the dotted forms: a
// slash there is as often a name.
func relativePath(s string, dotted bool) bool {
	if i := strings.IndexByte(s, '='); strings.HasPrefix(s, "-") && i >= 0 {
		s, dotted = s[i+1:], true
	}
	s = filepath.ToSlash(s)
	switch {
	case s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../"):
		return true
	case dotted || s == "" || filepath.IsAbs(s) || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") ||
		strings.HasPrefix(s, "@") || strings.HasPrefix(s, "-") || strings.Contains(s, "://"):
		return false
	}
	return strings.Contains(s, "/")
}
