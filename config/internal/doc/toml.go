package doc

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/switchboard-mcp/switchboard/config"
)

// ParseTOML parses a TOML document (Codex's config.toml) into the
// positioned tree. A blank file has a nil Root.
//
// github.com/pelletier/go-toml/v2 earns its place over BurntSushi/toml
// because it exposes positions: toml.Unmarshal checks the whole document
// (syntax, and redefined keys and tables) and its *DecodeError carries the
// line and column, and its unstable.Parser gives the byte range of every
// key and value, from which the tree is built. BurntSushi keeps key
// positions private to its MetaData.
func ParseTOML(path string, data []byte) (*Doc, error) {
	data = trimBOM(data)
	d := &Doc{Path: path, Lines: NewLines(data)}
	if len(bytes.TrimSpace(data)) == 0 {
		return d, nil
	}
	var check map[string]any
	if err := toml.Unmarshal(data, &check); err != nil {
		return nil, tomlDiag(path, err, nil)
	}
	b := &tomlTree{p: &unstable.Parser{}, root: &Value{Kind: Object}}
	b.p.Reset(data)
	cur := b.root
	for b.p.NextExpression() {
		n := b.p.Expression()
		switch n.Kind {
		case unstable.KeyValue:
			b.keyValue(cur, n)
		case unstable.Table, unstable.ArrayTable:
			cur = b.table(n)
		}
	}
	if err := b.p.Error(); err != nil {
		// Unmarshal accepted the file, so this should not happen; report
		// it all the same rather than read half a file.
		return nil, tomlDiag(path, err, b.p)
	}
	d.Root = b.root
	return d, nil
}

// tomlDiag positions a go-toml error; p is the parser that made it, if any.
func tomlDiag(path string, err error, p *unstable.Parser) *config.Diagnostic {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if k := de.Key(); len(k) > 0 && !strings.Contains(msg, strings.Join(k, ".")) {
			msg = fmt.Sprintf("%s (key %s)", msg, strings.Join(k, "."))
		}
		return &config.Diagnostic{Path: path, Line: max(line, 1), Column: max(col, 1), Message: msg}
	}
	var pe *unstable.ParserError
	if p != nil && errors.As(err, &pe) {
		// Highlight is a slice of the document p parsed.
		sh := p.Shape(p.Range(pe.Highlight))
		return &config.Diagnostic{Path: path, Line: max(sh.Start.Line, 1), Column: max(sh.Start.Column, 1), Message: pe.Message}
	}
	return &config.Diagnostic{Path: path, Line: 1, Column: 1, Message: err.Error()}
}

// tomlTree builds a jsonValue tree from go-toml's expression stream.
type tomlTree struct {
	p    *unstable.Parser
	root *Value
}

func (b *tomlTree) off(n *unstable.Node) int { return int(n.Raw.Offset) }

// keyParts returns the parts of a (dotted) key.
func keyParts(it unstable.Iterator) []*unstable.Node {
	var parts []*unstable.Node
	for it.Next() {
		parts = append(parts, it.Node())
	}
	return parts
}

// descend returns the table named by k inside t, creating it. Into an
// array of tables, it descends into the last one, as TOML does.
func (b *tomlTree) descend(t *Value, k *unstable.Node) *Value {
	key := string(k.Data)
	for i := range t.Members {
		if t.Members[i].Key != key {
			continue
		}
		v := t.Members[i].Val
		if v.Kind == Array && len(v.Elems) > 0 {
			v = v.Elems[len(v.Elems)-1]
		}
		if v.Kind == Object {
			return v
		}
		// Unmarshal rejects redefinitions; never let one panic here.
		return &Value{Kind: Object, Off: b.off(k)}
	}
	v := &Value{Kind: Object, Off: b.off(k)}
	t.Members = append(t.Members, Member{Key: key, Off: b.off(k), Val: v})
	return v
}

func (b *tomlTree) table(n *unstable.Node) *Value {
	parts := keyParts(n.Key())
	if len(parts) == 0 {
		return b.root
	}
	t := b.root
	for _, k := range parts[:len(parts)-1] {
		t = b.descend(t, k)
	}
	last := parts[len(parts)-1]
	if n.Kind == unstable.Table {
		return b.descend(t, last)
	}
	key := string(last.Data)
	var arr *Value
	for i := range t.Members {
		if t.Members[i].Key == key {
			arr = t.Members[i].Val
		}
	}
	if arr == nil || arr.Kind != Array {
		arr = &Value{Kind: Array, Off: b.off(last)}
		t.Members = append(t.Members, Member{Key: key, Off: b.off(last), Val: arr})
	}
	el := &Value{Kind: Object, Off: b.off(last)}
	arr.Elems = append(arr.Elems, el)
	return el
}

func (b *tomlTree) keyValue(t *Value, n *unstable.Node) {
	parts := keyParts(n.Key())
	if len(parts) == 0 {
		return
	}
	for _, k := range parts[:len(parts)-1] {
		t = b.descend(t, k)
	}
	last := parts[len(parts)-1]
	t.Members = append(t.Members, Member{Key: string(last.Data), Off: b.off(last), Val: b.value(n.Value(), b.off(last))})
}

// value converts one value; keyOff positions values that have no range of
// their own (arrays).
func (b *tomlTree) value(n *unstable.Node, keyOff int) *Value {
	v := &Value{Off: b.off(n)}
	switch n.Kind {
	case unstable.String:
		v.Kind, v.Str = String, string(n.Data)
	case unstable.Bool:
		v.Kind, v.Bool, v.Str = Bool, string(n.Data) == "true", string(n.Data)
	case unstable.Integer:
		v.Kind, v.Str = Number, string(n.Data)
		if i, err := strconv.ParseInt(strings.ReplaceAll(v.Str, "_", ""), 0, 64); err == nil {
			v.Str = strconv.FormatInt(i, 10)
		}
	case unstable.Float:
		v.Kind, v.Str = Number, strings.ReplaceAll(string(n.Data), "_", "")
		if strings.HasSuffix(v.Str, "nan") {
			v.Str = "NaN"
		}
	case unstable.Array:
		v.Kind, v.Off = Array, keyOff
		it := n.Children()
		for it.Next() {
			if c := it.Node(); c.Kind != unstable.Comment {
				v.Elems = append(v.Elems, b.value(c, keyOff))
			}
		}
	case unstable.InlineTable:
		v.Kind = Object
		it := n.Children()
		for it.Next() {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				b.keyValue(v, c)
			}
		}
	default: // dates and times
		v.Kind, v.Str = DateTime, string(n.Data)
	}
	return v
}
