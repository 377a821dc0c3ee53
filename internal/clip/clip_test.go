package clip

import (
	"testing"
	"unicode/utf8"
)

func TestTo(t *testing.T) {
	for _, tt := range []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 5, "ab…"},
		{"abcdef", 3, "…"},
		{"abcdef", 2, "ab"},
		{"abcdef", 1, "a"},
		{"abcdef", 0, ""},
		{"abcdef", -1, ""},
		{"héllo", 2, "h"},
		{"ééééé", 6, "é…"},
	} {
		got := To(tt.s, tt.max)
		if got != tt.want || (tt.max >= 0 && len(got) > tt.max) || !utf8.ValidString(got) {
			t.Errorf("To(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
		}
	}
}
