// Package clip shortens text quoted in error messages, so a hostile or
// mistaken config value cannot make one error a page long.
package clip

import "unicode/utf8"

// MaxLen is how many bytes of a quoted value an error keeps.
const MaxLen = 60

// Text returns s, or its first MaxLen bytes (never splitting a character)
// followed by "…".
func Text(s string) string {
	if len(s) <= MaxLen {
		return s
	}
	cut := MaxLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// To returns s, or s cut to at most max bytes in all (never splitting a
// character) and ending in "…" to say it was cut. Below the ellipsis's
// own three bytes it cuts without one.
func To(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max < 0 {
		max = 0
	}
	mark := "…"
	if max < len(mark) {
		mark = ""
	}
	cut := max - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}
