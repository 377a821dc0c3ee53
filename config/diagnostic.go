package config

import (
	"fmt"
	"strings"
)

// Diagnostic is a problem in a config file, positioned so a person can jump
// to it: a whole-file problem (syntax) or one server's problem (a field of
// the wrong type, a failed substitution, a failed validation).
type Diagnostic struct {
	Path    string
	Line    int // 1-based; 0 when unknown
	Column  int // 1-based byte offset within the line; 0 when unknown
	Server  string
	Field   string // path of the field within the server, like "env.TOKEN" or "args[2]"
	Message string

	// Err is the underlying cause, if any, for errors.Is and errors.As
	// (an *UnsetVariableError, an fs error, …). Message already says it.
	Err error
}

// Error renders `path:line:col: server "x": field "y": message`, leaving out
// the parts that are empty.
func (d *Diagnostic) Error() string {
	var b strings.Builder
	b.WriteString(d.Path)
	if d.Line > 0 {
		if d.Path != "" {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%d", d.Line)
		if d.Column > 0 {
			fmt.Fprintf(&b, ":%d", d.Column)
		}
	}
	sep := func() {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
	}
	if d.Server != "" {
		sep()
		fmt.Fprintf(&b, "server %q", d.Server)
	}
	if d.Field != "" {
		sep()
		fmt.Fprintf(&b, "field %q", d.Field)
	}
	sep()
	b.WriteString(d.Message)
	return b.String()
}

// Unwrap returns the underlying cause, if any.
func (d *Diagnostic) Unwrap() error { return d.Err }
