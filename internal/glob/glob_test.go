package glob

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"", "", true},
		{"", "a", false},
		{"*", "", true},
		{"*", "anything/at/all", true},
		{"github", "github", true},
		{"github", "github2", false},
		{"git*", "github", true},
		{"*hub", "github", true},
		{"g?thub", "github", true},
		{"g?thub", "gthub", false},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"https://*.example.com/*", "https://api.example.com/v1/mcp", true},
		{"https://*.example.com/*", "https://example.com/v1", false},
		{"http://[::1]:*", "http://[::1]:8080", true},
		{"[a]", "a", false},
		{"[a]", "[a]", true},
		{`a\*`, `a\xyz`, true},
		{"ü*", "über", true},
		{"?", "ü", true},
		{"*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
	} {
		if got := Match(tc.pattern, tc.s); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

func TestFirst(t *testing.T) {
	if got := First([]string{"x*", "g*", "gh"}, "gh"); got != "g*" {
		t.Errorf("First = %q, want g*", got)
	}
	if got := First(nil, "gh"); got != "" {
		t.Errorf("First(nil) = %q", got)
	}
}

// A pattern of many stars against a long near-miss would be exponential
// with backtracking; here it is quadratic at worst.
func BenchmarkMatchHostile(b *testing.B) {
	p := strings.Repeat("*a", 200) + "b"
	s := strings.Repeat("a", 4000)
	for b.Loop() {
		Match(p, s)
	}
}
