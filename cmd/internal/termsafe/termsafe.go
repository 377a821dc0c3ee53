// Package termsafe shows text that someone else wrote (a server's stderr,
// errors, tool descriptions and results, names in a cloned repository's
// config) on a person's terminal without letting it drive the terminal.
//
// A terminal acts on what it is sent: ESC starts sequences that set the
// window title, clear the screen, move the cursor or paint text, and a
// carriage return or a backspace draws over what was printed; C1 controls
// do the same in one byte, and bidi overrides reorder what a person reads.
// A server that could send those through us could clear the screen and
// draw "all servers OK". So every such character is shown escaped, as
// text, instead of being sent:
//
//   - C0 controls (U+0000–U+001F), DEL (U+007F) and C1 controls
//     (U+0080–U+009F) as \xNN, e.g. ESC as \x1b; except a tab, which is
//     kept, and in Text a newline, and a carriage return right before one
//     (CRLF line ends), which are kept too;
//   - the bidi embeddings, overrides and isolates U+202A–U+202E and
//     U+2066–U+2069 as \uNNNN, e.g. \u202e;
//   - each byte that is not part of valid UTF-8 as \xNN.
//
// Everything else is kept as it is, backslashes included: plain text, and
// a Windows path, print unchanged, and text that has nothing to escape is
// returned without a copy. An escaped character and the same escape typed
// as text look alike; that only ever shows text as less clean than it is.
//
// Only the standard library: the command line uses it everywhere it
// prints, and nothing here needs more.
package termsafe

import (
	"strings"
	"unicode/utf8"
)

// Line is s for one line of output: a table cell, a log line, an error.
// A newline in it is shown escaped, so it stays one line.
func Line(s string) string { return clean(s, false) }

// Text is s for output that may take several lines: a tool's text result,
// a resource's text. Newlines (and CRLF line ends) are kept.
func Text(s string) string { return clean(s, true) }

// JSON makes JSON text, as encoding/json writes it, safe on a terminal
// without changing what it decodes to. encoding/json escapes C0 controls
// but writes DEL, C1 controls and bidi overrides as they are; JSON has
// them only inside strings, where a \u escape stands for the same
// character, so each becomes one. Other bytes, the whitespace between
// values included, are kept. b must be valid UTF-8, as encoding/json's
// output always is; b is returned itself when nothing needs escaping.
func JSON(b []byte) []byte {
	var out []byte
	done := 0 // b[:done] is in out, or needs no copy
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == 0x7f || isC1(r) || isBidi(r) {
			if out == nil {
				out = make([]byte, 0, len(b)+16)
			}
			out = append(out, b[done:i]...)
			out = appendU(out, r)
			done = i + size
		}
		i += size
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}

// clean escapes what a terminal would act on; lines keeps newlines.
func clean(s string, lines bool) string {
	var b strings.Builder
	done := 0 // s[:done] is in b, or needs no copy
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !needsEscape(s, i, r, size, lines) {
			i += size
			continue
		}
		if b.Cap() == 0 {
			b.Grow(len(s) + 16)
		}
		b.WriteString(s[done:i])
		switch {
		case r == utf8.RuneError && size == 1:
			writeX(&b, s[i]) // a byte of invalid UTF-8
		case isBidi(r):
			b.Write(appendU(nil, r))
		default:
			writeX(&b, byte(r)) // a C0 or C1 control, or DEL
		}
		i += size
		done = i
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// needsEscape reports whether the rune r of size bytes at s[i] must be
// shown escaped.
func needsEscape(s string, i int, r rune, size int, lines bool) bool {
	switch {
	case r == utf8.RuneError:
		return size == 1 // U+FFFD itself is text
	case r == '\t':
		return false
	case r == '\n':
		return !lines
	case r == '\r':
		return !lines || i+1 >= len(s) || s[i+1] != '\n'
	case r < 0x20, r == 0x7f, isC1(r), isBidi(r):
		return true
	}
	return false
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// isBidi reports the bidi embeddings, overrides (U+202A–U+202E) and
// isolates (U+2066–U+2069): what "Trojan Source" (CVE-2021-42574) uses to
// show text in another order than it is.
func isBidi(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }

const hexDigits = "0123456789abcdef"

func writeX(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	b.WriteByte(hexDigits[c>>4])
	b.WriteByte(hexDigits[c&0xf])
}

// appendU appends r as \uNNNN: r is below U+10000.
func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u',
		hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}
