package doc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// MaxConfigDepth bounds how deeply arrays and objects of a config file may
// nest, as encoding/json does: a file of a million "[" would otherwise
// exhaust the stack of a recursive parser, which no recover can catch. No
// tool's config nests more than a handful of levels. A message from a
// server has a lower bound, go-sdk's (transport.MaxMessageDepth, 1000).
const MaxConfigDepth = 10000

// ParseJSON reads a JSON file, or with jsonc a JSONC one (comments and
// trailing commas allowed, as VS Code's mcp.json and our own file are).
// A blank file has a nil Root; a file that does not parse is a
// *config.Diagnostic naming the line and column. The top level may be of
// any kind; callers say what they want there.
//
// JSONC is read by github.com/tailscale/hujson, whose tree keeps the byte
// offset of every value. Plain JSON is checked by encoding/json first, so
// a comment in a file its tool reads as strict JSON is reported as that
// tool would see it.
func ParseJSON(path string, data []byte, jsonc bool) (*Doc, error) {
	data = trimBOM(data)
	d := &Doc{Path: path, Lines: NewLines(data)}
	if IsBlank(data, jsonc) {
		return d, nil
	}
	if !jsonc {
		if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
			off, msg := syntaxPosition(data, err)
			return nil, d.Diag(off, "", "", msg)
		}
	} else if off, deep := tooDeep(data); deep {
		return nil, d.Diag(off, "", "", fmt.Sprintf("nested more than %d deep", MaxConfigDepth))
	}
	if jsonc {
		data = readableComments(Terminated(data))
	}
	v, err := hujson.Parse(data)
	if err != nil {
		off, msg := d.hujsonPosition(data, err)
		return nil, d.Diag(off, "", "", msg)
	}
	d.Root = fromHuJSON(&v)
	return d, nil
}

// fromHuJSON converts hujson's syntax tree into a Value tree.
func fromHuJSON(v *hujson.Value) *Value {
	out := &Value{Off: v.StartOffset}
	switch t := v.Value.(type) {
	case *hujson.Object:
		out.Kind = Object
		for i := range t.Members {
			m := &t.Members[i]
			out.Members = append(out.Members, Member{
				Key: m.Name.Value.(hujson.Literal).String(),
				Off: m.Name.StartOffset,
				Val: fromHuJSON(&m.Value),
			})
		}
	case *hujson.Array:
		out.Kind = Array
		for i := range t.Elements {
			out.Elems = append(out.Elems, fromHuJSON(&t.Elements[i]))
		}
	case hujson.Literal:
		switch t.Kind() {
		case 'n':
			out.Kind = Null
		case 't', 'f':
			out.Kind, out.Bool, out.Str = Bool, t.Bool(), string(t)
		case '"':
			out.Kind, out.Str = String, t.String()
		default:
			out.Kind, out.Str = Number, string(t)
		}
	}
	return out
}

// hujsonErrRE is how hujson.Parse prefixes its errors.
var hujsonErrRE = regexp.MustCompile(`^hujson: line (\d+), column (\d+): (.*)$`)

// hujsonPosition turns a hujson error into an offset and a message.
func (d *Doc) hujsonPosition(data []byte, err error) (int, string) {
	m := hujsonErrRE.FindStringSubmatch(err.Error())
	if m == nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return truncated(data)
		}
		return 0, err.Error()
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	off, msg := d.Lines.lineStart(line)+col-1, m[3]
	switch {
	case strings.HasPrefix(msg, "parsing comment:"):
		return off, `comment is not closed (missing "*/")`
	case errors.Is(err, io.ErrUnexpectedEOF):
		return truncated(data)
	case strings.HasPrefix(msg, "invalid literal: "):
		// hujson points at the literal's start; encoding/json, given the
		// literal and the byte after it, says which byte is wrong.
		lit := strings.TrimPrefix(msg, "invalid literal: ")
		end := min(off+len(lit)+1, len(data))
		if off >= 0 && off < end {
			var se *json.SyntaxError
			if err := json.Unmarshal(data[off:end], new(json.RawMessage)); errors.As(err, &se) && se.Offset > 0 && se.Error() != "unexpected end of JSON input" {
				off += int(se.Offset) - 1
				msg = se.Error()
				if depthAt(data, off) > 0 {
					// The literal was read alone, but it is inside the file.
					msg = strings.Replace(msg, "after top-level value", "after a value", 1)
				}
			}
		}
	}
	return off, msg
}

// tooDeep reports whether arrays and objects in data nest deeper than
// MaxConfigDepth, and where. What is not JSONC is left for the parser to report.
func tooDeep(data []byte) (int, bool) {
	depth, at := 0, -1
	scan(data, func(i int, c byte) bool {
		switch c {
		case '{', '[':
			if depth++; depth > MaxConfigDepth {
				at = i
				return false
			}
		case '}', ']':
			depth--
		}
		return true
	})
	return at, at >= 0
}

// CountValues is about how many values a JSON, JSONC or flow-style YAML
// document holds (brackets, braces and commas outside strings and
// comments, plus one): what parsing it costs in memory, found without
// parsing it. A tree takes a few hundred bytes a value, so a 4 MiB array
// of two million tiny values would take most of a gigabyte.
func CountValues(data []byte) int {
	n := 1
	scan(data, func(_ int, c byte) bool {
		if c == '{' || c == '[' || c == ',' {
			n++
		}
		return true
	})
	return n
}

// depthAt is how many arrays and objects are open at offset off.
func depthAt(data []byte, off int) int {
	depth := 0
	scan(data[:min(max(off, 0), len(data))], func(_ int, c byte) bool {
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		return true
	})
	return depth
}

// onlyComments reports whether data holds nothing but white space and
// comments: an empty JSONC file, as a person leaves one.
func onlyComments(data []byte) bool {
	empty := true
	complete := scan(data, func(_ int, c byte) bool {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			empty = false
		}
		return empty
	})
	return empty && complete
}

// comments calls f with the byte range of each comment's text in data.
func comments(data []byte, f func(from, to int)) {
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			end := bytes.IndexByte(data[i:], '\n')
			if end < 0 {
				end = len(data) - i
			}
			f(i+2, i+end)
			i += end
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				f(i+2, len(data))
				return
			}
			f(i+2, i+2+end)
			i += end + 3
		}
	}
}

// scan calls f with each byte of data outside strings and comments (a
// string's opening quote included), until f returns false. It reports
// false when it stopped early or at an unterminated block comment.
func scan(data []byte, f func(i int, c byte) bool) bool {
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return false
			}
			i += end + 3
		default:
			if !f(i, c) {
				return false
			}
			if c == '"' {
				for i++; i < len(data) && data[i] != '"'; i++ {
					if data[i] == '\\' {
						i++
					}
				}
			}
		}
	}
	return true
}

// syntaxPosition turns an encoding/json error into an offset and message.
func syntaxPosition(data []byte, err error) (int, string) {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return 0, err.Error()
	}
	if se.Error() == "unexpected end of JSON input" {
		return truncated(data)
	}
	// Offset counts the bytes read including the offending one.
	return int(se.Offset) - 1, se.Error()
}

// truncated points just after the last thing written: that is where the
// rest of the file is missing.
func truncated(data []byte) (int, string) {
	return len(bytes.TrimRight(data, " \t\r\n")), "unexpected end of input (is the file truncated?)"
}

// IsBlank reports whether data holds nothing but white space (and, with
// jsonc, comments): a file with no config in it yet, which is not an
// error.
func IsBlank(data []byte, jsonc bool) bool {
	if len(bytes.TrimLeft(data, " \t\r\n")) == 0 {
		return true
	}
	return jsonc && onlyComments(data)
}

// Terminated is data ending in a line break: hujson ends a line comment
// only at one, and editors (VS Code among them) do not always write a
// final one. Offsets are unchanged. data is not modified.
func Terminated(data []byte) []byte {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return data
	}
	return append(data[:len(data):len(data)], '\n')
}

// readableComments is data with what hujson refuses inside a comment —
// bytes that are not UTF-8 (a comment saved as Latin-1), U+2028 and
// U+2029 — overwritten with spaces, byte for byte, so offsets stay. A
// comment is prose for people; what it says does not change the config.
// data is not modified.
func readableComments(data []byte) []byte {
	var out []byte
	blank := func(from, to int) {
		if out == nil {
			out = bytes.Clone(data)
		}
		for i := from; i < to; i++ {
			out[i] = ' '
		}
	}
	fix := func(from, to int) {
		for i := from; i < to; {
			r, size := utf8.DecodeRune(data[i:to])
			if r == utf8.RuneError && size <= 1 || r == '\u2028' || r == '\u2029' {
				blank(i, i+max(size, 1))
			}
			i += max(size, 1)
		}
	}
	comments(data, fix)
	if out == nil {
		return data
	}
	return out
}

// HasTopLevelKey reports whether data is a JSON or JSONC object with key
// at its top level, for recognising a file's format by its content.
func HasTopLevelKey(data []byte, key string) bool {
	d, err := ParseJSON("", data, true)
	return err == nil && d.Root != nil && d.Root.Kind == Object && d.Root.Member(key) != nil
}
