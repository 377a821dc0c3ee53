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
