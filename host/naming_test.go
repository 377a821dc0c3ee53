package host

import (
	"regexp"
	"strings"
	"testing"
)

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestAssignNames(t *testing.T) {
	long := strings.Repeat("x", 70)
	keys := []toolKey{
		{"demo", "s3"}, {"demo", "s4"}, {"demo", "a.b"}, {"demo", "a_b"},
		{"demo", "with space"}, {"my server", "echo"},
		{"demo", long + "_one_suffix"}, {"demo", long + "_two_suffix"},
		{"", ""},
	}
	names, collisions := assignNames(DefaultToolPrefix, keys, nil)
	seen := map[string]toolKey{}
	for k, n := range names {
		if !validName.MatchString(n) {
			t.Errorf("%v -> %q: not a valid tool name", k, n)
		}
		if other, dup := seen[n]; dup {
			t.Errorf("%v and %v both named %q", k, other, n)
		}
		seen[n] = k
	}
	if got := names[toolKey{"demo", "s3"}]; got != "mcp__demo__s3" {
		t.Errorf("s3 -> %q, want mcp__demo__s3 (digits kept)", got)
	}
	if got := names[toolKey{"my server", "echo"}]; got != "mcp__my_server__echo" {
		t.Errorf("got %q", got)
	}
	// a.b and a_b sanitize alike; the one sorting first keeps the plain name.
	if got := names[toolKey{"demo", "a.b"}]; got != "mcp__demo__a_b" {
		t.Errorf("a.b -> %q, want the plain name", got)
	}
	if len(collisions) != 1 {
		t.Errorf("collisions = %q, want one", collisions)
	}
	// Stable: the same keys in another order give the same names.
	rev := make([]toolKey, len(keys))
	for i, k := range keys {
		rev[len(keys)-1-i] = k
	}
	again, _ := assignNames(DefaultToolPrefix, rev, nil)
	for k, n := range names {
		if again[k] != n {
			t.Errorf("%v: %q then %q", k, n, again[k])
		}
	}
}

// A tool re-listed with a new input schema is a change an agent must see.
func TestSameToolsSeesSchemas(t *testing.T) {
	a := []Tool{{Name: "mcp__s__t", Server: "s", Tool: "t", InputSchema: map[string]any{"type": "object"}}}
	b := []Tool{{Name: "mcp__s__t", Server: "s", Tool: "t", InputSchema: map[string]any{"type": "object", "required": []any{"x"}}}}
	if !sameTools(a, a) {
		t.Error("a set differs from itself")
	}
	if sameTools(a, b) {
		t.Error("a changed input schema went unnoticed")
	}
}

// TestAssignNamesSticky: a name given to a tool stays with it while it is
// listed, whatever tool appears later (issue: servers "a" and "a__b", and
// "a" adds a tool "b__echo" at run time).
func TestAssignNamesSticky(t *testing.T) {
	ab := toolKey{"a__b", "echo"}
	first, _ := assignNames(DefaultToolPrefix, []toolKey{ab, {"a", "x"}}, nil)
	if first[ab] != "mcp__a__b__echo" {
		t.Fatalf("a__b/echo -> %q", first[ab])
	}
	intruder := toolKey{"a", "b__echo"}
	second, collisions := assignNames(DefaultToolPrefix, []toolKey{ab, {"a", "x"}, intruder}, first)
	if second[ab] != "mcp__a__b__echo" {
		t.Errorf("a__b/echo moved to %q", second[ab])
	}
	if second[intruder] == "mcp__a__b__echo" || !validName.MatchString(second[intruder]) {
		t.Errorf("a/b__echo -> %q, want a name of its own", second[intruder])
	}
	if len(collisions) != 1 {
		t.Errorf("collisions = %q, want the one clash reported", collisions)
	}
	// Reported once: the next rebuild keeps both names and says nothing.
	third, again := assignNames(DefaultToolPrefix, []toolKey{intruder, ab}, second)
	if len(again) != 0 || third[ab] != second[ab] || third[intruder] != second[intruder] {
		t.Errorf("rebuild changed names %v or reported %q again", third, again)
	}
	// Once a__b is gone, its name is free for the next tool that wants it.
	fourth, _ := assignNames(DefaultToolPrefix, []toolKey{{"a", "x"}, {"c", "y"}}, third)
	if _, kept := fourth[ab]; kept {
		t.Error("a removed tool kept its name")
	}
}

// sanitizeNamePart gives the names the regexp it replaced gave: one "_"
// per character outside [A-Za-z0-9_-], a multi-byte one included, and one
// per byte that is not UTF-8.
func TestSanitizeNamePart(t *testing.T) {
	unsafe := regexp.MustCompile(`[^A-Za-z0-9_-]`)
	for _, s := range []string{
		"echo", "read_file", "s3", "a-b", "a.b", "with space", "tool/with/slash",
		"héllo", "日本語", "emoji😀x", "\xff\xfeok", "bad\xc3", "tab\there", "über-tool", "A_Z-09",
	} {
		if got, want := sanitizeNamePart(s), unsafe.ReplaceAllString(s, "_"); got != want {
			t.Errorf("sanitizeNamePart(%q) = %q, want %q", s, got, want)
		}
	}
	if got := sanitizeNamePart(""); got != "_" {
		t.Errorf("empty -> %q", got)
	}
}

func FuzzSanitizeNamePart(f *testing.F) {
	unsafe := regexp.MustCompile(`[^A-Za-z0-9_-]`)
	for _, s := range []string{"echo", "a.b", "héllo", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" {
			return
		}
		if got, want := sanitizeNamePart(s), unsafe.ReplaceAllString(s, "_"); got != want {
			t.Errorf("sanitizeNamePart(%q) = %q, want %q", s, got, want)
		}
	})
}
