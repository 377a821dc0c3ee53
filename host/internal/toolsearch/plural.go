package toolsearch

import "strings"

// A question of which things, or what things, is answered by a list:
// "which keys are in the cache", "what pods run in kube-system", "which
// rate-limit keys start with user:". The question word alone says
// little ("what's U123's job title" wants one profile), so it is the
// question word followed, within three words, by a plural noun that
// implies "list" (the fourth round of issue 28, testdata/README.md).
var askWords = map[string]bool{"which": true, "what": true}

// askedPlural is the question word and the plural it asks of, as said,
// and where the question word is among the query's words (a word inside
// a path, a file's name or another kind counts as one); ok is false when
// the query asks no such question.
func askedPlural(query string) (said string, at int, ok bool) {
	if lower := strings.ToLower(query); !strings.Contains(lower, "which") && !strings.Contains(lower, "what") {
		return "", 0, false // most queries ask no question: no kinds to read
	}
	var raw []string
	for _, f := range strings.Fields(query) {
		if kind(strings.TrimRight(strings.Trim(f, "\"'`()[]{}<>,;:!"), ".?")) != "" {
			raw = append(raw, "") // "what's inside notes.txt": a file's name is no plural
			continue
		}
		for w := range strings.FieldsFuncSeq(strings.ToLower(f), notWordRune) {
			raw = append(raw, w)
		}
	}
	for i, w := range raw {
		if !askWords[w] {
			continue
		}
		for _, next := range raw[i+1 : min(i+4, len(raw))] {
			if stopWords[next] {
				continue
			}
			if plural(next) {
				return w + " " + next, i, true
			}
		}
	}
	return "", 0, false
}

// plural says whether w (lower case) reads as a plural noun: an s its
// stem drops, not "ss" ("status", "access") nor a short word ("has").
func plural(w string) bool {
	return len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && stem(w) != w
}
