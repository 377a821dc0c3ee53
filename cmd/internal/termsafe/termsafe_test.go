package termsafe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineAndText(t *testing.T) {
	for _, tc := range []struct {
		name, in, line, text string
	}{
		{name: "plain", in: "all servers OK", line: "all servers OK", text: "all servers OK"},
		{name: "empty", in: "", line: "", text: ""},
		{name: "unicode", in: "café ✓ 日本 \ufffd", line: "café ✓ 日本 \ufffd", text: "café ✓ 日本 \ufffd"},
		{name: "backslashes stay", in: `C:\Users\x1b`, line: `C:\Users\x1b`, text: `C:\Users\x1b`},
		{name: "tab stays", in: "a\tb", line: "a\tb", text: "a\tb"},
		{
			name: "title, clear, home",
			in:   "\x1b]0;pwned\x07\x1b[2J\x1b[Hall servers OK",
			line: `\x1b]0;pwned\x07\x1b[2J\x1b[Hall servers OK`,
			text: `\x1b]0;pwned\x07\x1b[2J\x1b[Hall servers OK`,
		},
		{name: "newlines", in: "one\ntwo\n", line: `one\x0atwo\x0a`, text: "one\ntwo\n"},
		{name: "CRLF", in: "one\r\ntwo", line: `one\x0d\x0atwo`, text: "one\r\ntwo"},
		{name: "lone CR draws over", in: "rm -rf ~\rls", line: `rm -rf ~\x0dls`, text: `rm -rf ~\x0dls`},
		{name: "CR at the end", in: "x\r", line: `x\x0d`, text: `x\x0d`},
		{name: "backspace NUL DEL", in: "a\bb\x00c\x7f", line: `a\x08b\x00c\x7f`, text: `a\x08b\x00c\x7f`},
		{name: "C1 CSI and NEL", in: "\u009b31m\u0085", line: `\x9b31m\x85`, text: `\x9b31m\x85`},
		{name: "bidi override", in: "abc\u202edcba\u202c", line: `abc\u202edcba\u202c`, text: `abc\u202edcba\u202c`},
		{name: "bidi isolates", in: "\u2066\u2067\u2068\u2069\u202a", line: `\u2066\u2067\u2068\u2069\u202a`, text: `\u2066\u2067\u2068\u2069\u202a`},
		{name: "neighbours of bidi stay", in: "\u2029\u202f\u2065\u206a", line: "\u2029\u202f\u2065\u206a", text: "\u2029\u202f\u2065\u206a"},
		{name: "invalid UTF-8", in: "a\xffb\xc3", line: `a\xffb\xc3`, text: `a\xffb\xc3`},
		{name: "encoded C1 cut short", in: "\xc2", line: `\xc2`, text: `\xc2`},
		{name: "overlong ESC", in: "\xc0\x9b", line: `\xc0\x9b`, text: `\xc0\x9b`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Line(tc.in); got != tc.line {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
			}
			if got := Text(tc.in); got != tc.text {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	v := map[string]string{"k\u009b": "a\x1b[2J\x7f\u0085\u202e\u2066 ok", "plain": "é"}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(raw)
	want := `{"k\u009b":"a\u001b[2J\u007f\u0085\u202e\u2066 ok","plain":"é"}`
	if string(got) != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if back["k\u009b"] != v["k\u009b"] || back["plain"] != "é" {
		t.Errorf("decoded %q, want %q", back, v)
	}
	plain := []byte("{\n  \"a\": \"b\"\n}\n")
	if got := JSON(plain); &got[0] != &plain[0] {
		t.Error("JSON copied text that needed no escape")
	}
}

// unsafe is what a terminal acts on, written out again here rather than
// taken from the code under test.
func unsafe(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// checkSafe fails when out holds anything a terminal would act on.
func checkSafe(t *testing.T, in, out string, lines bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("output of %q is not valid UTF-8: %q", in, out)
	}
	for i, r := range out {
		switch {
		case r == '\t', lines && r == '\n':
		case lines && r == '\r' && strings.HasPrefix(out[i:], "\r\n"):
		case unsafe(r):
			t.Fatalf("output of %q holds %U at %d: %q", in, r, i, out)
		}
	}
}

// plain reports whether s has nothing to escape: valid UTF-8 without
// controls (tab allowed) or bidi overrides.
func plain(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != '\t' && unsafe(r) {
			return false
		}
	}
	return true
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "plain", "a\tb", "\x1b]0;t\x07\x1b[2J", "x\r\ny\n", "\u009b\u202e\xff", `\x1b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line, text := Line(s), Text(s)
		checkSafe(t, s, line, false)
		checkSafe(t, s, text, true)
		if strings.ContainsRune(line, '\n') {
			t.Fatalf("Line(%q) = %q holds a newline", s, line)
		}
		if plain(s) && line != s {
			t.Fatalf("Line changed plain text %q to %q", s, line)
		}
		if plain(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", " "), "\n", " ")) && text != s {
			t.Fatalf("Text changed plain text %q to %q", s, text)
		}
		// What comes out has nothing left to escape.
		if Line(line) != line || Text(text) != text {
			t.Fatalf("escaping %q twice changed it", s)
		}
	})
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[2J\x7f", "\u0085\u009b", "\u202e\u2069", "\xff\xfe", "<&>\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, err := json.Marshal(map[string]any{s: []string{s}})
		if err != nil {
			t.Fatal(err)
		}
		got := JSON(raw)
		if !json.Valid(got) {
			t.Fatalf("JSON(%s) = %s is not JSON", raw, got)
		}
		var want, back any
		_ = json.Unmarshal(raw, &want)
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if w, b, _ := marshalBoth(want, back); w != b {
			t.Fatalf("JSON changed the value: %s, was %s", b, w)
		}
		checkSafe(t, string(raw), string(got), false)
	})
}

func marshalBoth(a, b any) (string, string, error) {
	x, err := json.Marshal(a)
	if err != nil {
		return "", "", err
	}
	y, err := json.Marshal(b)
	return string(x), string(y), err
}
