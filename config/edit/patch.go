package edit

import (
	"encoding/json"
	"strings"

	"github.com/tailscale/hujson"
)

// These patch a hujson tree the way a person would edit the file: a new
// member goes last, indented like its siblings; a removed one takes its
// line and its comments with it, and leaves its neighbours' comments
// where they were; every other byte stays.
//
// Where hujson keeps a comment decides who owns it. A comment on the line
// of a member, after it, is stored in the extra before the next key (or,
// after the last member, in the object's closing extra): the part of an
// extra before its first line break belongs to the member above.

// object is a JSON object in the tree, with the indentation of the line
// its key (or, at the top, its brace) is on, and the file's line break.
type object struct {
	v      *hujson.Value
	indent string
	nl     string // "\n", or "\r\n" in a file written that way
}

func (o object) obj() *hujson.Object { return o.v.Value.(*hujson.Object) }

// find returns the index of the last member named name, or -1: a name
// given twice means its last value, as discovery reads it.
func (o object) find(name string) int {
	ms := o.obj().Members
	for i := len(ms) - 1; i >= 0; i-- {
		if lit, ok := ms[i].Name.Value.(hujson.Literal); ok && lit.String() == name {
			return i
		}
	}
	return -1
}

// value returns the value of the member named name, or nil.
func (o object) value(name string) *hujson.Value {
	i := o.find(name)
	if i < 0 {
		return nil
	}
	return &o.obj().Members[i].Value
}

// child returns the member named name as an object, if it is one.
func (o object) child(name string) (object, bool) {
	i := o.find(name)
	if i < 0 {
		return object{}, false
	}
	m := &o.obj().Members[i]
	if _, ok := m.Value.Value.(*hujson.Object); !ok {
		return object{}, false
	}
	return object{v: &m.Value, indent: keyIndent(m.Name.BeforeExtra, o.indent), nl: o.nl}, true
}

// keyIndent is the indentation a key's extra puts it at: the spaces and
// tabs that start the line it is on, or, for a key on the line of its
// parent, the parent's.
func keyIndent(before hujson.Extra, parent string) string {
	s := string(before)
	nl := strings.LastIndexByte(s, '\n')
	if nl < 0 {
		return parent
	}
	line := s[nl+1:]
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))]
}

// head and tail split an extra at its first line break: what stays on the
// line above, and the rest, the line break included.
func head(e hujson.Extra) string {
	s := string(e)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

func tail(e hujson.Extra) string {
	s := string(e)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[i:]
	}
	return ""
}

// remove drops every member named name.
func (o object) remove(name string) {
	for i := o.find(name); i >= 0; i = o.find(name) {
		o.removeAt(i)
	}
}

func (o object) removeAt(i int) {
	obj := o.obj()
	removed := obj.Members[i]
	// What stood on the line above the removed key is the member above's
	// (or the brace's) and stays; what follows on the removed member's own
	// line goes with it.
	above := head(removed.Name.BeforeExtra)
	if !strings.ContainsAny(string(removed.Name.BeforeExtra), "\r\n") {
		// A key on the line of the member before it: what stood before
		// it is the space after a comma, which goes with it.
		above = ""
	}
	if i+1 < len(obj.Members) {
		next := &obj.Members[i+1].Name
		if strings.ContainsAny(string(next.BeforeExtra), "\r\n") {
			next.BeforeExtra = hujson.Extra(above + tail(next.BeforeExtra))
		} else {
			// On one line, the next member takes the removed one's place.
			next.BeforeExtra = removed.Name.BeforeExtra
		}
	} else {
		if i > 0 {
			// The new last member keeps the file's trailing-comma habit.
			obj.Members[i-1].Value.AfterExtra = removed.Value.AfterExtra
		}
		if strings.ContainsAny(string(obj.AfterExtra), "\r\n") {
			obj.AfterExtra = hujson.Extra(above + tail(obj.AfterExtra))
		}
		if i == 0 && strings.TrimSpace(string(obj.AfterExtra)) == "" {
			// The last member gone, an object with nothing but space in
			// it closes up again, as "{}": what add opened.
			obj.AfterExtra = nil
		}
	}
	obj.Members = append(obj.Members[:i:i], obj.Members[i+1:]...)
}

// set sets the member named name to value: in place when there is one
// (its comments stay; earlier duplicates go), else as a new last member.
func (o object) set(name string, value any) error {
	i := o.find(name)
	if i < 0 {
		return o.add(name, value)
	}
	nv, err := encode(value, "", "", o.nl)
	if err != nil {
		return err
	}
	o.obj().Members[i].Value.Value = nv.Value
	for j := i - 1; j >= 0; j-- {
		if lit, ok := o.obj().Members[j].Name.Value.(hujson.Literal); ok && lit.String() == name {
			o.removeAt(j)
		}
	}
	return nil
}

// add appends name: value as the last member, laid out like the members
// already there, or one step deeper than the object's own line when there
// are none.
func (o object) add(name string, value any) error {
	obj := o.obj()
	lead, indent, unit := o.layout()
	nv, err := encode(value, indent, unit, o.nl)
	if err != nil {
		return err
	}
	nv.BeforeExtra = hujson.Extra(" ")
	if !strings.ContainsAny(lead, "\r\n") && strings.TrimSpace(head(obj.AfterExtra)) != "" && strings.ContainsAny(string(obj.AfterExtra), "\r\n") {
		// A comment after the last member of a one-line object, up to the
		// line's end, is that member's: the new one goes on a line of its
		// own below it, so that removing it leaves the comment in place.
		lead = o.nl + o.indent
	}
	if strings.ContainsAny(lead, "\r\n") && strings.ContainsAny(string(obj.AfterExtra), "\r\n") {
		// A comment on the last member's line stays on that line.
		lead = head(obj.AfterExtra) + lead
		obj.AfterExtra = hujson.Extra(tail(obj.AfterExtra))
	}
	key := hujson.Value{BeforeExtra: hujson.Extra(lead), Value: hujson.String(name)}
	if n := len(obj.Members); n > 0 {
		prev := &obj.Members[n-1].Value
		if prev.AfterExtra != nil {
			// A trailing comma: the new last member keeps one too, and
			// the old one's extra is just before a separator now.
			nv.AfterExtra = prev.AfterExtra
			prev.AfterExtra = nil
		}
	} else if strings.ContainsAny(lead, "\r\n") && !strings.ContainsAny(string(obj.AfterExtra), "\r\n") {
		// An empty "{}" opens up: its closing brace gets a line of its own.
		obj.AfterExtra = hujson.Extra(o.nl + o.indent)
	}
	obj.Members = append(obj.Members, hujson.ObjectMember{Name: key, Value: nv})
	return nil
}

// layout returns what goes before a new member's key (a line break and
// indentation, or a space in a one-line object), the new member's
// indentation, and one indentation step ("" for one-line output).
func (o object) layout() (lead, indent, unit string) {
	ms := o.obj().Members
	if n := len(ms); n > 0 {
		before := string(ms[n-1].Name.BeforeExtra)
		if !strings.ContainsAny(before, "\r\n") {
			return " ", "", "" // a one-line object stays one line
		}
		indent = keyIndent(ms[n-1].Name.BeforeExtra, o.indent)
		unit = "  "
		switch {
		case strings.HasPrefix(indent, o.indent) && len(indent) > len(o.indent):
			unit = indent[len(o.indent):]
		case strings.HasPrefix(indent, "\t"):
			unit = "\t"
		}
		return o.nl + indent, indent, unit
	}
	unit = "  "
	if strings.HasPrefix(o.indent, "\t") {
		unit = "\t"
	}
	return o.nl + o.indent + unit, o.indent + unit, unit
}

// encode renders value as a hujson value, indented for a member whose key
// is at indent (one line when unit is ""), with the file's line breaks.
func encode(value any, indent, unit, nl string) (hujson.Value, error) {
	var data []byte
	var err error
	if unit == "" {
		data, err = json.Marshal(value)
		data = spaced(data)
	} else {
		data, err = json.MarshalIndent(value, indent, unit)
		if nl != "\n" {
			data = []byte(strings.ReplaceAll(string(data), "\n", nl))
		}
	}
	if err != nil {
		return hujson.Value{}, err
	}
	return hujson.Parse(data)
}

// spaced puts a space after each colon and comma of compact JSON outside
// strings, as people write one-line objects: {"disabled": true}.
func spaced(data []byte) []byte {
	var out []byte
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		out = append(out, c)
		switch {
		case inString && c == '\\' && i+1 < len(data):
			i++
			out = append(out, data[i])
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			out = append(out, ' ')
		}
	}
	return out
}
