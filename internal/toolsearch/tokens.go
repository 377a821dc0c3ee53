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
// inside camelCase words; lower-cased, stop words dropped, stemmed.
func tokens(text string) []string {
	var out []string
	for _, w := range words(text) {
		w = strings.ToLower(w)
		if stopWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

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

// stem folds the commonest English endings so "files", "file", "listing"
// and "listed" meet: a light suffix stripper, not Porter. Query and
// documents go through the same function, so it need only be consistent.
func stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		w = w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "shes") ||
		strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "zes")):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = undouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = undouble(w[:n-2])
	}
	// A final e goes too, so "create", "created" and "creating" agree.
	if len(w) > 3 && strings.HasSuffix(w, "e") && !strings.HasSuffix(w, "ee") {
		w = w[:len(w)-1]
	}
	return w
}

// undouble drops one of a doubled final consonant: running → run.
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}
