package doc

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"

	"github.com/switchboard-mcp/switchboard/config"
)

// maxYAMLNodes bounds the tree built from a YAML document. Aliases let a
// few lines stand for exponentially many nodes ("billion laughs"), and
// project files come from repositories someone else wrote.
const maxYAMLNodes = 100_000

// ParseYAML parses the first document of a YAML file (Goose, Continue)
// into the positioned tree. A blank file has a nil Root.
// Aliases are expanded and "<<" merge keys applied; tags decide scalar
// kinds, and every scalar keeps its text in str (YAML's `args: [--port, 8080]` means the
// string "8080").
//
// go.yaml.in/yaml/v4 earns its place over gopkg.in/yaml.v3 and its
// maintained fork go.yaml.in/yaml/v3 (both frozen: security fixes only):
// its Node API gives every node's line and column like v3's, and its
// syntax errors (*yaml.LoadError) carry a column too, where v3 reports
// only "yaml: line N".
func ParseYAML(path string, data []byte) (*Doc, error) {
	data = trimBOM(data)
	lines := NewLines(data)
	d := &Doc{Path: path, Lines: lines}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		diag := &config.Diagnostic{Path: path, Line: 1, Column: 1, Message: strings.TrimPrefix(err.Error(), "yaml: ")}
		var le *yaml.LoadError
		if errors.As(err, &le) && le.Mark.Line > 0 {
			diag.Line, diag.Column = lines.Pos(yamlOffset(lines, data, le.Mark.Line, le.Mark.Column))
			diag.Message = le.Message
		}
		return nil, diag
	}
	if doc.Kind == 0 || doc.Kind == yaml.DocumentNode && len(doc.Content) == 0 {
		return d, nil
	}
	b := &yamlTree{lines: lines, data: data, active: make(map[*yaml.Node]bool)}
	root := b.value(&doc)
	if b.count > maxYAMLNodes {
		return nil, &config.Diagnostic{Path: path, Line: 1, Column: 1,
			Message: fmt.Sprintf("document expands to more than %d nodes (aliases nested too deep?)", maxYAMLNodes)}
	}
	if root == nil || root.Kind == Null {
		return d, nil
	}
	d.Root = root
	return d, nil
}

// yamlOffset turns a YAML position (line and column, both 1-based, the
// column in characters) into a byte offset of data.
func yamlOffset(lines Lines, data []byte, line, col int) int {
	if line < 1 {
		return 0
	}
	off := lines.lineStart(line)
	for i := 1; i < col && off < len(data) && data[off] != '\n'; i++ {
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off
}

type yamlTree struct {
	lines  Lines
	data   []byte
	count  int
	active map[*yaml.Node]bool // aliases being expanded, against cycles

	// Offsets found so far, and the last one: nodes come mostly in file
	// order, so each is found from the one before, not from the start of
	// its line (a long one-line flow sequence would make that quadratic),
	// and an alias's nodes are looked up, not walked to again.
	offs                    map[[2]int]int
	lastLine, lastCol, last int
}

func (b *yamlTree) off(n *yaml.Node) int {
	key := [2]int{n.Line, n.Column}
	if off, ok := b.offs[key]; ok {
		return off
	}
	var off int
	if n.Line == b.lastLine && n.Column >= b.lastCol && b.lastLine > 0 {
		off = b.last
		for i := b.lastCol; i < n.Column && off < len(b.data) && b.data[off] != '\n'; i++ {
			_, size := utf8.DecodeRune(b.data[off:])
			off += size
		}
	} else {
		off = yamlOffset(b.lines, b.data, n.Line, n.Column)
	}
	if b.offs == nil {
		b.offs = make(map[[2]int]int)
	}
	b.offs[key] = off
	b.lastLine, b.lastCol, b.last = n.Line, n.Column, off
	return off
}

func (b *yamlTree) value(n *yaml.Node) *Value {
	b.count++
	v := &Value{Kind: Null, Off: b.off(n)}
	if b.count > maxYAMLNodes {
		return v
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) > 0 {
			return b.value(n.Content[0])
		}
	case yaml.AliasNode:
		if n.Alias == nil || b.active[n.Alias] {
			return v
		}
		b.active[n.Alias] = true
		defer delete(b.active, n.Alias)
		a := b.value(n.Alias)
		// The alias stands where it is written, for positions.
		c := *a
		c.Off = v.Off
		return &c
	case yaml.SequenceNode:
		v.Kind = Array
		for _, c := range n.Content {
			v.Elems = append(v.Elems, b.value(c))
		}
	case yaml.MappingNode:
		v.Kind = Object
		b.mapping(v, n)
	case yaml.ScalarNode:
		v.Str = n.Value
		switch n.ShortTag() {
		case "!!null":
		case "!!bool":
			v.Kind = Bool
			v.Bool, _ = strconv.ParseBool(strings.ToLower(n.Value))
		case "!!int", "!!float":
			v.Kind = Number
			v.Str = strings.ReplaceAll(n.Value, "_", "")
		default:
			v.Kind = String
		}
	}
	return v
}

// mapping fills v from a mapping node. Keys written in the mapping win
// over those a "<<" merge key brings in, wherever the merge is written.
func (b *yamlTree) mapping(v *Value, n *yaml.Node) {
	var merged []Member
	own := make(map[string]bool)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue // a complex key; no tool's config has one
		}
		if k.ShortTag() == "!!merge" {
			src := b.value(val)
			srcs := []*Value{src}
			if src.Kind == Array {
				srcs = src.Elems
			}
			for _, s := range srcs {
				merged = append(merged, s.Members...)
			}
			continue
		}
		own[k.Value] = true
		v.Members = append(v.Members, Member{Key: k.Value, Off: b.off(k), Val: b.value(val)})
	}
	for _, m := range merged {
		if !own[m.Key] {
			own[m.Key] = true
			v.Members = append(v.Members, m)
		}
	}
}
