package toolsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopWords are words too common in queries and descriptions to say
// anything about a tool. The list is short on purpose: "get", "list" and
// "all" name what tools do.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "for": true,
	"in": true, "on": true, "and": true, "or": true, "is": true, "are": true,
	"be": true, "with": true, "by": true, "from": true, "at": true, "as": true,
	"it": true, "its": true, "this": true, "that": true, "i": true, "me": true,
	"my": true, "you": true, "your": true, "can": true, "please": true,
	"do": true, "does": true, "will": true, "into": true, "which": true,
}

// tokens splits text into the index's words: at every character that is
// not a letter or a digit (so snake_case, kebab-case and "__" split), and
// inside camelCase words; lower-cased, stop words dropped, stemmed. A run
// cut by case is kept whole too, so "GitHub" meets "github" and
// "JavaScript" meets "javascript" as well as "script".
func tokens(text string) []string { return (&tokenizer{}).tokens(text) }

// A tokenizer is tokens with a memory of the words it has stemmed, when
// stems is not nil: an index's tools repeat their words, and stemming is
// most of the cost of reading them.
type tokenizer struct {
	stems map[string]string
	// surface, when not nil, gets the first lower-cased word seen for
	// each stem.
	surface map[string]string
}

func (tz *tokenizer) tokens(text string) []string {
	var out []string
	add := func(w string) {
		w = strings.ToLower(w)
		if stopWords[w] {
			return
		}
		s, ok := tz.stems[w]
		if !ok {
			s = stem(w)
			if tz.stems != nil {
				tz.stems[w] = s
			}
		}
		if tz.surface != nil {
			if _, ok := tz.surface[s]; !ok {
				tz.surface[s] = w
			}
		}
		out = append(out, s)
	}
	for run := range strings.FieldsFuncSeq(text, notWordRune) {
		parts := words(run)
		for _, w := range parts {
			add(w)
		}
		if len(parts) > 1 {
			add(run)
		}
	}
	return out
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// words cuts text into runs of letters and digits, and cuts each run again
// where its case changes: "getFileInfo" is get, File, Info and "URLPath"
// is URL, Path. The words are slices of text, not copies.
func words(text string) []string {
	var out []string
	start := -1
	var prev rune
	for i, r := range text {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if start >= 0 {
				out = append(out, text[start:i])
			}
			start = -1
			continue
		}
		if start < 0 {
			start, prev = i, r
			continue
		}
		cut := false
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			cut = true // fileInfo
		case unicode.IsUpper(prev) && unicode.IsUpper(r):
			next, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):])
			cut = unicode.IsLower(next) // URLPath: the P starts a word
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			cut = true // h1, v2
		}
		if cut {
			out = append(out, text[start:i])
			start = i
		}
		prev = r
	}
	if start >= 0 {
		out = append(out, text[start:])
	}
	return out
}
