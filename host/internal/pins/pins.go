// Package pins remembers each server's tool definitions as first seen or
// approved, so a definition that changes behind a person's back is seen
// (DESIGN.md F66). One file holds every server's, keyed by the server's
// identity; each process merges its changes into it under a lock.
package pins

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// FileName is the pin file's name in the state directory.
const FileName = "pins.json"

// Version is the file's format. A file of another version is refused, not
// rewritten: it may be a newer switchboard's, and the approvals in it are
// a person's.
const Version = 1

// Changes a tool may have, as Check and Book.Changes name them.
const (
	// Changed: the server lists the tool with another definition.
	Changed = "changed"
	// Readded: the server stopped listing the tool and lists it again.
	Readded = "readded"
	// Removed: the server no longer lists a tool it had.
	Removed = "removed"
)

// The parts of a definition a change names (Diff).
var parts = []string{"title", "description", "inputSchema", "outputSchema", "annotations"}

// Def is a remembered definition: the parts of a tool that pinning covers
// and their digest.
type Def struct {
	Digest string    `json:"digest"`
	Tool   *mcp.Tool `json:"tool"`
}

// Record is what is remembered of one tool.
type Record struct {
	// Approved is the definition first seen or last approved.
	Approved Def `json:"approved"`
	// Seen is the definition last listed, when it is not Approved (or
	// the tool came back after Removed): what an approval accepts.
	Seen *Def `json:"seen,omitempty"`
	// Removed is when the server stopped listing the tool, until an
	// approval; a tool listed again after it is a change.
	Removed time.Time `json:"removed,omitzero"`
}

// Server is what is remembered of one server's tools.
type Server struct {
	// Name is the server's name when last seen, for people and "did you
	// mean": the key is its identity.
	Name  string             `json:"name"`
	Tools map[string]*Record `json:"tools"`
}

// Book is the whole file: servers by key (their identity's digest).
type Book struct {
	Version int                `json:"version"`
	Servers map[string]*Server `json:"servers"`
}

// New is an empty book.
func New() *Book { return &Book{Version: Version, Servers: map[string]*Server{}} }

// Error is a pin file that cannot be used: one line naming it and why.
type Error struct {
	Path string
	// Shared, instead of Path, names the shared store the pins are kept
	// in (SharedUpdate).
	Shared string
	Err    error
}

func (e *Error) Error() string {
	if e.Shared != "" {
		return fmt.Sprintf("tool pins in %s: %s (until they can be read, pinned servers' tools are withheld)", e.Shared, e.Err)
	}
	return fmt.Sprintf("pin file %s: %s (fix or remove it; until then pinned servers' tools are withheld)", e.Path, safefile.Reason(e.Err))
}

func (e *Error) Unwrap() error { return e.Err }

// Read reads the book at path; a missing file is an empty book. Anything
// that is not a regular file of ours (a pipe, a device, a link to one,
// garbage, another version) is an *Error.
func Read(path string) (*Book, error) {
	data, err := safefile.ReadLimited(path, safefile.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		var dl *safefile.DanglingLinkError
		if !errors.As(err, &dl) {
			return New(), nil
		}
	}
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	b, err := decode(data)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return b, nil
}

// decode is a book from its JSON, checked as Read checks a file.
func decode(data []byte) (*Book, error) {
	var b Book
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("not a pin file: %w", err)
	}
	if b.Version != Version {
		return nil, fmt.Errorf("version %d, want %d", b.Version, Version)
	}
	if b.Servers == nil {
		b.Servers = map[string]*Server{}
	}
	for key, s := range b.Servers {
		if s == nil || s.Tools == nil {
			return nil, fmt.Errorf("server %q has no tools object", key)
		}
		for name, r := range s.Tools {
			if r == nil || r.Approved.Tool == nil || r.Approved.Digest == "" {
				return nil, fmt.Errorf("server %q: tool %q has no approved definition", s.Name, name)
			}
		}
	}
	return &b, nil
}

// Update changes the book at path under the directory's lock (two
// processes, a daemon and a one-shot command, do not lose each other's
// change) and writes it atomically, mode 0600. fn sees the file as it is
// now and reports whether it changed it; an fn that changed nothing or
// returns an error writes nothing, as does an unreadable file (its *Error
// is returned: a person's approvals are not overwritten).
func Update(path string, fn func(*Book) (bool, error)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return &Error{Path: path, Err: err}
	}
	unlock, err := safefile.Lock(path)
	if err != nil {
		return &Error{Path: path, Err: err}
	}
	defer unlock()
	b, err := Read(path)
	if err != nil {
		return err
	}
	if changed, err := fn(b); err != nil || !changed {
		return err
	}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return &Error{Path: path, Err: err}
	}
	if len(data) > safefile.MaxConfigSize {
		return &Error{Path: path, Err: fmt.Errorf("%d bytes, more than the %d it may hold", len(data), safefile.MaxConfigSize)}
	}
	if err := safefile.WriteAtomic(path, append(data, '\n'), 0o600); err != nil {
		return &Error{Path: path, Err: err}
	}
	return nil
}

// pinned is the part of a tool pinning covers: what a model reads and
// what the host sends.
type pinned struct {
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description,omitempty"`
	InputSchema  any                  `json:"inputSchema,omitempty"`
	OutputSchema any                  `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

// canonical is v as JSON with object keys sorted and numbers as JSON has
// them, whatever Go type holds it (a map, json.RawMessage, a schema).
func canonical(v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprintf("unencodable %T", v))
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&generic) != nil {
		return raw
	}
	out, _ := json.Marshal(generic)
	return out
}

// Digest is the canonical digest of t's pinned parts (its name is the
// record's key).
func Digest(t *mcp.Tool) string {
	sum := sha256.Sum256(canonical(pinned{t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations}))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// DefOf is what a Record keeps of t.
func DefOf(t *mcp.Tool) Def {
	return Def{Digest: Digest(t), Tool: &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations}}
}

// Diff names the parts in which two definitions differ, in a fixed order.
func Diff(a, b *mcp.Tool) []string {
	pa := []any{a.Title, a.Description, a.InputSchema, a.OutputSchema, a.Annotations}
	pb := []any{b.Title, b.Description, b.InputSchema, b.OutputSchema, b.Annotations}
	var out []string
	for i, name := range parts {
		if !bytes.Equal(canonical(pa[i]), canonical(pb[i])) {
			out = append(out, name)
		}
	}
	return out
}

// Check says how t, listed by the server of key, differs from what is
// remembered: "" for a tool as approved or never seen (trust on first
// use: it is remembered as it is), else Changed or Readded with the parts
// that differ from the approved definition. digest is Digest(t).
func (b *Book) Check(key string, t *mcp.Tool, digest string) (change string, what []string) {
	s := b.Servers[key]
	if s == nil {
		return "", nil
	}
	r := s.Tools[t.Name]
	switch {
	case r == nil:
		return "", nil
	case !r.Removed.IsZero():
		return Readded, Diff(r.Approved.Tool, t)
	case r.Approved.Digest == digest:
		return "", nil
	}
	return Changed, Diff(r.Approved.Tool, t)
}

// Observe records a listing of the server of key (named name): a tool
// never seen is remembered as approved, one that differs is Seen, one not
// listed is Removed. It reports whether the book changed.
func (b *Book) Observe(key, name string, tools []*mcp.Tool, now time.Time) bool {
	s := b.Servers[key]
	if s == nil {
		s = &Server{Name: name, Tools: map[string]*Record{}}
		b.Servers[key] = s
	}
	changed := s.Name != name
	s.Name = name
	listed := make(map[string]bool, len(tools))
	for _, t := range tools {
		listed[t.Name] = true
		d := DefOf(t)
		r := s.Tools[t.Name]
		switch {
		case r == nil:
			s.Tools[t.Name] = &Record{Approved: d}
			changed = true
		case r.Removed.IsZero() && d.Digest == r.Approved.Digest:
			if r.Seen != nil {
				r.Seen, changed = nil, true
			}
		case r.Seen == nil || r.Seen.Digest != d.Digest:
			r.Seen, changed = &d, true
		}
	}
	for tool, r := range s.Tools {
		if listed[tool] {
			continue
		}
		if r.Removed.IsZero() {
			r.Removed, changed = now.UTC(), true
		}
		if r.Seen != nil {
			r.Seen, changed = nil, true
		}
	}
	return changed
}

// Removals are the tools of the server of key that were removed and not
// listed since, sorted.
func (b *Book) Removals(key string) []string {
	s := b.Servers[key]
	if s == nil {
		return nil
	}
	var out []string
	for name, r := range s.Tools {
		if !r.Removed.IsZero() && r.Seen == nil {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Pending are the tools of the server of key an approval would change:
// those Seen with another definition or back after a removal, and those
// removed; sorted.
func (b *Book) Pending(key string) []string {
	s := b.Servers[key]
	if s == nil {
		return nil
	}
	var out []string
	for name, r := range s.Tools {
		if r.Seen != nil || !r.Removed.IsZero() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Known are the tools remembered for the server of key, sorted.
func (b *Book) Known(key string) []string {
	s := b.Servers[key]
	if s == nil {
		return nil
	}
	var out []string
	for name := range s.Tools {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Approve accepts the last seen definition of a tool of the server of key:
// a changed or re-added tool's becomes its approved one, and a removed
// tool is forgotten (if it comes back, it is new). It reports whether
// there was anything to accept; a tool not remembered is an error.
func (b *Book) Approve(key, tool string) (bool, error) {
	s := b.Servers[key]
	var r *Record
	if s != nil {
		r = s.Tools[tool]
	}
	switch {
	case r == nil:
		return false, fmt.Errorf("no tool %q remembered", tool)
	case r.Seen != nil:
		r.Approved, r.Seen, r.Removed = *r.Seen, nil, time.Time{}
		return true, nil
	case !r.Removed.IsZero():
		delete(s.Tools, tool)
		return true, nil
	}
	return false, nil
}
