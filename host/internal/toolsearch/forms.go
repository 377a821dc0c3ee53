package toolsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// unclitic rewrites the forms of English that tokens would cut into
// words that are not there: a clitic ("what's", "user's", "doesn't",
// "I'm") is dropped, so "user's" is no "users" and "what's" no "s",
// and an acronym's plural ("PRs", "URLs", "IDs") is the acronym, not
// "P" and "Rs". The index reads tools' texts and queries through it
// alike.
func unclitic(text string) string {
	if !strings.ContainsAny(text, "'’") && !acronymPlural(text) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case (r == '\'' || r == '’') && i > 0:
			if n := clitic(text[i+size:]); n >= 0 {
				// "doesn't": the n belongs to the clitic.
				if n == 1 && text[i+size] == 't' && strings.HasSuffix(b.String(), "n") && !strings.HasSuffix(b.String(), "can") {
					s := b.String()
					b.Reset()
					b.WriteString(s[:len(s)-1])
				}
				i += size + n
				continue
			}
		case r == 's' && i >= 2 && isUpperASCII(text[i-1]) && isUpperASCII(text[i-2]) && (i+1 == len(text) || !isWordByte(text[i+1])) && (i == 2 || !isWordByte(text[i-3]) || isUpperASCII(text[i-3])):
			i += size // PRs, URLs: the acronym
			continue
		}
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

// clitic is the length of the clitic that starts s ("s", "t", "m", "re",
// "ve", "ll", "d" and the word's end), or -1.
func clitic(s string) int {
	for _, c := range []string{"re", "ve", "ll", "s", "t", "m", "d"} {
		if len(s) >= len(c) && strings.EqualFold(s[:len(c)], c) {
			if len(s) == len(c) {
				return len(c)
			}
			if r, _ := utf8.DecodeRuneInString(s[len(c):]); !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return len(c)
			}
		}
	}
	return -1
}

// acronymPlural says whether text may hold an acronym's plural: two
// capitals and an s.
func acronymPlural(text string) bool {
	for i := 2; i < len(text); i++ {
		if text[i] == 's' && isUpperASCII(text[i-1]) && isUpperASCII(text[i-2]) {
			return true
		}
	}
	return false
}

func isUpperASCII(c byte) bool { return c >= 'A' && c <= 'Z' }

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// queryTokens is tokens for a query: a word written in camelCase or as
// a brand ("GitHub", "JavaScript", "parseConfig") is one word of the
// query, not three, so it is the whole, stemmed, and parts maps it to
// its parts, which a tool may write apart ("Git Hub" never, "parse
// config" often); a word cut only at digits ("k8s", "v2", "U123") is the
// whole alone. The index reads tools' texts with tokens, parts and
// whole alike.
func (tz *tokenizer) queryTokens(text string) (out []string, parts map[string][]string) {
	for run := range strings.FieldsFuncSeq(text, notWordRune) {
		ps := words(run)
		if len(ps) == 1 {
			out = append(out, tz.tokens(run)...)
			continue
		}
		whole := tz.tokens(run)
		if len(whole) == 0 {
			continue
		}
		w := whole[len(whole)-1] // tokens adds the run last
		out = append(out, w)
		if !lettersOnly(run) {
			continue
		}
		for _, p := range whole[:len(whole)-1] {
			if p != w {
				if parts == nil {
					parts = map[string][]string{}
				}
				parts[w] = append(parts[w], p)
			}
		}
	}
	return out, parts
}

func lettersOnly(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}
