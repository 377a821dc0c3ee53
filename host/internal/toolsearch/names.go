package toolsearch

import (
	"strings"
	"unicode"
)

// namesOf finds the proper names a query says: "Acme is a customer now",
// "Carol reports to Alice", "forget Initech". A name is a capitalised
// word (not an acronym such as PR or CI) that no tool says and, first in
// the query, where every sentence starts with a capital, that is no
// English word either. Each implies an "entity": a thing a knowledge
// graph or a store of records keeps, since tools name their own objects
// (GitHub, Deployment) and so are not taken for names.
func (ix *Index) namesOf(query string) []named {
	var out []named
	for i, f := range strings.Fields(query) {
		f = strings.Trim(f, "\"'`()[]{}<>,;:!.?")
		f = strings.TrimSuffix(strings.TrimSuffix(f, "'s"), "’s")
		if !properName(f) || kind(f) != "" {
			continue
		}
		s := stem(strings.ToLower(f))
		if _, ok := ix.postings[s]; ok {
			continue
		}
		if _, ok := wordNet()[s]; ok && i == 0 || i == 0 && functionWords[strings.ToLower(f)] {
			continue
		}
		return append(out, named{"entity", f}) // one name says it
	}
	return out
}

// properName says whether w is a capital and then lower-case letters.
func properName(w string) bool {
	lower := false
	for i, r := range w {
		switch {
		case i == 0 && !unicode.IsUpper(r):
			return false
		case i > 0 && unicode.IsUpper(r):
			return false // GitHub, iPhone: a product's own word
		case !unicode.IsLetter(r):
			return false
		case i > 0:
			lower = true
		}
	}
	return lower
}

// functionWords are words that start a sentence and are in no
// dictionary of content words: an auxiliary, a question word, a
// pronoun ("Did the CI pipeline go green", "Could you list ..."). First
// in a query, they are no name.
var functionWords = map[string]bool{
	"did": true, "does": true, "do": true, "is": true, "are": true, "was": true, "were": true, "has": true,
	"have": true, "had": true, "can": true, "could": true, "would": true, "should": true, "will": true,
	"shall": true, "may": true, "might": true, "must": true, "what": true, "which": true, "who": true,
	"whom": true, "whose": true, "how": true, "why": true, "when": true, "where": true, "please": true,
	"we": true, "you": true, "they": true, "he": true, "she": true, "it": true, "my": true, "our": true,
	"your": true, "their": true, "this": true, "that": true, "these": true, "those": true, "there": true,
	"any": true, "anything": true, "then": true, "so": true, "just": true, "also": true, "now": true,
}
