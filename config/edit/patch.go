package edit

import (
	"encoding/json"
	"strings"

	"github.com/tailscale/hujson"
)

// These patch a hujson tree the way a person would edit the file: a new
// member goes last, indented like its siblings; a removed one takes its
// own line and comments with it; everything else keeps its bytes.

// object is a JSON object in the tree, with the indentation of the line
// its key (or, at the top, its brace) is on.
type object struct {
	v      *hujson.Value
	indent string
}

func (o object) members() []hujson.ObjectMember { return o.v.Value.(*hujson.Object).Members }

// find returns the index of the first member named name, or -1.
func (o object) find(name string) int {
	for i, m := range o.members() {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == name {
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
	return &o.v.Value.(*hujson.Object).Members[i].Value
}

// child returns the member named name as an object, if it is one.
func (o object) child(name string) (object, bool) {
	i := o.find(name)
	if i < 0 {
		return object{}, false
	}
	m := &o.v.Value.(*hujson.Object).Members[i]
	if _, ok := m.Value.Value.(*hujson.Object); !ok {
		return object{}, false
	}
	return object{v: &m.Value, indent: keyIndent(m.Name.BeforeExtra, o.indent)}, true
}

// keyIndent is the indentation a key's extra puts it at: what follows the
// extra's last line break, or, for a key on the line of its parent, the
// parent's.
func keyIndent(before hujson.Extra, parent string) string {
	s := string(before)
	if nl := strings.LastIndexByte(s, '\n'); nl >= 0 {
		return s[nl+1:]
	}
	return parent
}

// remove drops the member named name, if any.
func (o object) remove(name string) {
	i := o.find(name)
	if i < 0 {
		return
	}
	obj := o.v.Value.(*hujson.Object)
	last := i == len(obj.Members)-1
	removed := obj.Members[i]
	obj.Members = append(obj.Members[:i:i], obj.Members[i+1:]...)
	if last && len(obj.Members) > 0 {
		// The new last member keeps the file's trailing-comma habit.
		obj.Members[len(obj.Members)-1].Value.AfterExtra = removed.Value.AfterExtra
	}
}

// set sets the member named name to value: in place when there is one
// (its comments stay), else as a new last member.
func (o object) set(name string, value any) error {
	if m := o.value(name); m != nil {
		nv, err := encode(value, "", "")
		if err != nil {
			return err
		}
		m.Value = nv.Value
		return nil
	}
	return o.add(name, value)
}

// add appends name: value as the last member, laid out like the members
// already there, or one step deeper than the object's own line when there
// are none.
func (o object) add(name string, value any) error {
	obj := o.v.Value.(*hujson.Object)
	lead, indent, unit := o.layout()
	nv, err := encode(value, indent, unit)
	if err != nil {
		return err
	}
	nv.BeforeExtra = hujson.Extra(" ")
	key := hujson.Value{BeforeExtra: hujson.Extra(lead), Value: hujson.String(name)}
	if n := len(obj.Members); n > 0 {
		prev := &obj.Members[n-1].Value
		if prev.AfterExtra != nil {
			// A trailing comma: the new last member keeps one too, and
			// the old one's (empty) extra is just a separator now.
			nv.AfterExtra = prev.AfterExtra
			prev.AfterExtra = nil
		}
	} else if strings.Contains(lead, "\n") && !strings.Contains(string(obj.AfterExtra), "\n") {
		// An empty "{}" opens up: its closing brace gets a line of its own.
		obj.AfterExtra = hujson.Extra("\n" + o.indent)
	}
	obj.Members = append(obj.Members, hujson.ObjectMember{Name: key, Value: nv})
	return nil
}

// layout returns what goes before a new member's key (a line break and
// indentation, or a space in a one-line object), the new member's
// indentation, and one indentation step ("" for one-line output).
func (o object) layout() (lead, indent, unit string) {
	obj := o.v.Value.(*hujson.Object)
	if n := len(obj.Members); n > 0 {
		before := string(obj.Members[n-1].Name.BeforeExtra)
		nl := strings.LastIndexByte(before, '\n')
		if nl < 0 {
			return " ", "", "" // a one-line object stays one line
		}
		indent = before[nl+1:]
		unit = "  "
		switch {
		case strings.HasPrefix(indent, o.indent) && len(indent) > len(o.indent):
			unit = indent[len(o.indent):]
		case strings.HasPrefix(indent, "\t"):
			unit = "\t"
		}
		return "\n" + indent, indent, unit
	}
	unit = "  "
	if strings.HasPrefix(o.indent, "\t") {
		unit = "\t"
	}
	return "\n" + o.indent + unit, o.indent + unit, unit
}

// encode renders value as a hujson value, indented for a member whose key
// is at indent (one line when unit is "").
func encode(value any, indent, unit string) (hujson.Value, error) {
	var data []byte
	var err error
	if unit == "" {
		data, err = json.Marshal(value)
		data = spaced(data)
	} else {
		data, err = json.MarshalIndent(value, indent, unit)
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
