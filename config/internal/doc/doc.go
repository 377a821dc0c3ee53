// Package doc reads config files of every format switchboard understands
// (JSON, JSONC, TOML, YAML) into one positioned tree, so that the
// adapters read fields one way and every problem names a line and column
// (DESIGN.md, "One tree, one decoder").
package doc

import (
	"bytes"
	"sort"

	"github.com/switchboard-mcp/switchboard/config"
)

// Kind is the type of a value, named as error messages say it.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
	// DateTime is a TOML date or time: JSON has none, and no tool's field
	// wants one.
	DateTime
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	default:
		return "a date-time"
	}
}

// Value is one value and the byte offset of its first byte in the file.
type Value struct {
	Kind    Kind
	Off     int
	Str     string // a string's contents, or a number's or scalar's text
	Bool    bool
	Elems   []*Value
	Members []Member // object members in file order, duplicates kept
}

// Member is one member of an object.
type Member struct {
	Key string
	Off int // offset of the key
	Val *Value
}

// Member returns the value of the last member named key (as
// encoding/json would decode it), or nil.
func (v *Value) Member(key string) *Value {
	var found *Value
	for _, m := range v.Members {
		if m.Key == key {
			found = m.Val
		}
	}
	return found
}

// Nullish reports whether v is absent or null; adapters treat both alike.
func Nullish(v *Value) bool { return v == nil || v.Kind == Null }

// Doc is a parsed file: its tree and what turns offsets into positions.
type Doc struct {
	Path  string
	Lines Lines
	// Root is nil for a blank file.
	Root *Value
}

// Diag builds a Diagnostic positioned at a byte offset of the file.
func (d *Doc) Diag(off int, server, field, msg string) *config.Diagnostic {
	return d.Lines.Diag(d.Path, off, server, field, msg)
}

// Lines turns byte offsets into line:column positions.
type Lines struct {
	size   int
	starts []int // byte offset where each line starts
}

// NewLines indexes data's lines.
func NewLines(data []byte) Lines {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return Lines{size: len(data), starts: starts}
}

// Pos returns the 1-based line and column (in bytes) of a byte offset,
// clamped to the data so that a bad offset still yields a usable position.
func (t Lines) Pos(off int) (line, col int) {
	off = max(0, min(off, t.size))
	i := sort.Search(len(t.starts), func(i int) bool { return t.starts[i] > off }) - 1
	return i + 1, off - t.starts[i] + 1
}

// Line returns the 1-based line of a byte offset.
func (t Lines) Line(off int) int {
	line, _ := t.Pos(off)
	return line
}

// Diag builds a Diagnostic positioned at a byte offset.
func (t Lines) Diag(path string, off int, server, field, msg string) *config.Diagnostic {
	line, col := t.Pos(off)
	return &config.Diagnostic{Path: path, Line: line, Column: col, Server: server, Field: field, Message: msg}
}

// lineStart is the offset where a 1-based line starts, or the end of the
// data past the last line.
func (t Lines) lineStart(line int) int {
	if line < 1 {
		return 0
	}
	if line > len(t.starts) {
		return t.size
	}
	return t.starts[line-1]
}

var utf8BOM = []byte("\xef\xbb\xbf")

// trimBOM drops a byte order mark, which editors on Windows like to write
// and no parser here accepts. Dropping it keeps line 1's columns right.
func trimBOM(data []byte) []byte { return bytes.TrimPrefix(data, utf8BOM) }
