package doc

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/config"
)

func TestParseJSONC(t *testing.T) {
	in := "{\n  // a comment\n  \"a\": [1, \"two\", true,],\n  /* block\n */ \"b\": {\"c\": null},\n  \"a\": \"again\",\n}"
	d, err := ParseJSON("f.json", []byte(in), true)
	if err != nil {
		t.Fatal(err)
	}
	type flat struct {
		Key        string
		Line, Col  int
		Kind, Text string
	}
	var got []flat
	for _, m := range d.Root.Members {
		line, col := d.Lines.Pos(m.Off)
		got = append(got, flat{m.Key, line, col, m.Val.Kind.String(), m.Val.Str})
	}
	want := []flat{
		{"a", 3, 3, "array", ""},
		{"b", 5, 5, "object", ""},
		{"a", 6, 3, "string", "again"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	if a := d.Root.Member("a"); a.Str != "again" {
		t.Errorf("Member returns %q, want the last definition", a.Str)
	}
	arr := d.Root.Members[0].Val
	if len(arr.Elems) != 3 || arr.Elems[0].Str != "1" || arr.Elems[1].Str != "two" || !arr.Elems[2].Bool {
		t.Errorf("array = %+v", arr.Elems)
	}
	if line, col := d.Lines.Pos(arr.Elems[1].Off); line != 3 || col != 12 {
		t.Errorf("element at %d:%d, want 3:12", line, col)
	}
}

func TestParseJSONErrors(t *testing.T) {
	tests := []struct {
		name  string
		jsonc bool
		in    string
		want  string
	}{
		{"jsonc literal", true, "{\n  // a comment\n  \"a\": [1, 2,],\n  /* block\n */ \"b\": tru\n}", "f.json:5:13: invalid character '\\n' in literal true (expecting 'e')"},
		{"jsonc truncated", true, "{\n  \"a\": {\n", "f.json:2:9: unexpected end of input (is the file truncated?)"},
		{"jsonc unterminated comment", true, "{\n  \"a\": {} /* no end\n}", `f.json:2:11: comment is not closed (missing "*/")`},
		{"jsonc BOM does not shift columns", true, "\xef\xbb\xbf{x}", "f.json:1:2: invalid character 'x' looking for beginning of value"},
		{"jsonc bad escape", true, `{"mcpServers": {"a\q": {}}}`, "f.json:1:20: invalid character 'q' in string escape code"},
		{"jsonc bad literal inside", true, `{"a": {"b": truee}}`, "f.json:1:17: invalid character 'e' after a value"},
		{"json comment", false, "{\n  // no\n}", "f.json:2:3: invalid character '/' looking for beginning of object key string"},
		{"json trailing comma", false, "{\"a\": 1,}", "f.json:1:9: invalid character '}' looking for beginning of object key string"},
		{"json truncated", false, "{\"a\": [1,\n\n", "f.json:1:10: unexpected end of input (is the file truncated?)"},
		{"jsonc too deep", true, strings.Repeat("[", MaxConfigDepth+1), "f.json:1:10001: nested more than 10000 deep"},
		{"json too deep", false, strings.Repeat("[", MaxConfigDepth+1), "f.json:1:10001: invalid character '[' exceeded max depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseJSON("f.json", []byte(tt.in), tt.jsonc)
			var d *config.Diagnostic
			if !errors.As(err, &d) {
				t.Fatalf("err = %v (%T), want a *config.Diagnostic", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("err = %v\nwant  %s", err, tt.want)
			}
		})
	}
}

// TestParseJSONCComments: what editors leave in comments, and where, does
// not stop a file from being read.
func TestParseJSONCComments(t *testing.T) {
	for _, in := range []string{
		`{"a": 1} // no line break at the end`,
		"{\"a\": 1} // caf\xe9, saved as Latin-1\n",
		"{\"a\": 1} /* a line\u2028separator */\n",
		"{\"a\": /* \xff */ 1}",
	} {
		d, err := ParseJSON("f.json", []byte(in), true)
		if err != nil {
			t.Errorf("ParseJSON(%q): %v", in, err)
			continue
		}
		if a := d.Root.Member("a"); a == nil || a.Str != "1" {
			t.Errorf("ParseJSON(%q) lost the value: %+v", in, d.Root)
		}
	}
}

func TestParseJSONBlank(t *testing.T) {
	for _, tt := range []struct {
		in    string
		jsonc bool
	}{{"", false}, {" \n", false}, {"\xef\xbb\xbf", false}, {"// only a comment\n", true}, {"/* a */ // b", true}} {
		d, err := ParseJSON("f.json", []byte(tt.in), tt.jsonc)
		if err != nil || d.Root != nil {
			t.Errorf("ParseJSON(%q) = %v, %v; want a blank document", tt.in, d, err)
		}
	}
}

// A million nested brackets must be an error, not a stack overflow.
func TestParseJSONCDeepDoesNotCrash(t *testing.T) {
	in := strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000)
	if _, err := ParseJSON("f.json", []byte(in), true); err == nil {
		t.Fatal("no error for a million nested arrays")
	}
}

func FuzzParseJSONC(f *testing.F) {
	f.Add([]byte("{\n  // c\n  \"a\": [1, {\"b\": null},],\n}"))
	f.Add([]byte(`{"mcpServers": {"x": {"command": "y", "args": ["\u00e9"]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseJSON("f.json", data, true)
		if err != nil {
			var diag *config.Diagnostic
			if !errors.As(err, &diag) || diag.Line < 1 || diag.Column < 1 {
				t.Fatalf("error %v is not a positioned diagnostic", err)
			}
			return
		}
		if d.Root == nil {
			return
		}
		// Every offset lies within the file.
		var walk func(v *Value)
		walk = func(v *Value) {
			if v.Off < 0 || v.Off > len(data) {
				t.Fatalf("offset %d outside a file of %d bytes", v.Off, len(data))
			}
			for _, e := range v.Elems {
				walk(e)
			}
			for _, m := range v.Members {
				walk(m.Val)
			}
		}
		walk(d.Root)
	})
}

// TestParseYAMLLongLine: positions on a long one-line flow sequence are
// found in one pass (walking each from its line's start took seconds for
// 180 KB), and are right.
func TestParseYAMLLongLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("args: [")
	const n = 60000
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("é")
	}
	b.WriteString("]\n")
	d, err := ParseYAML("f.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	elems := d.Root.Member("args").Elems
	if len(elems) != n {
		t.Fatalf("%d elements", len(elems))
	}
	// "args: [" is 7 bytes; each "é, " is 4.
	if got, want := elems[n-1].Off, 7+4*(n-1); got != want {
		t.Errorf("last element at byte %d, want %d", got, want)
	}
}
