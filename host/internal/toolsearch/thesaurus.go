package toolsearch

import "slices"

// A thesaurus is a table of meanings, each the words a writer may put for
// one another, and for each word the meanings it has. When the tuning
// names one (tuning.thes), a query word's fellows in its meanings join
// its group, as WordNet's related words do.
//
// The index as tuned reads none. The third round of issue 28 measured the
// English thesauri Debian ships (testdata/README.md, "Thesauri (third
// round)"): Aiksaurus, read from libaiksaurus-1.2-data by the tests
// (aiksaurus_test.go), moved the tuning needs by a need or two either way
// at every weight, and LibreOffice's thesauri (mythes-en-us, mythes-en-au)
// are WordNet again. The hook stays so that a table that gains can be
// measured and taken as one.
type thesaurus struct {
	meanings [][]string
	of       map[string][]int32
}

// add puts in a meaning: its words, each a stemmed word or two side by
// side as pair writes them; a word there twice counts once.
func (th *thesaurus) add(words []string) {
	if th.of == nil {
		th.of = map[string][]int32{}
	}
	m := int32(len(th.meanings))
	th.meanings = append(th.meanings, words)
	for i, w := range words {
		if !slices.Contains(words[:i], w) {
			th.of[w] = append(th.of[w], m)
		}
	}
}

// akin calls f with each word that shares a meaning with w, once each,
// w itself left out.
func (th *thesaurus) akin(w string, f func(string)) {
	ms := th.of[w]
	if len(ms) == 0 {
		return
	}
	seen := map[string]bool{w: true}
	for _, m := range ms {
		for _, s := range th.meanings[m] {
			if !seen[s] {
				seen[s] = true
				f(s)
			}
		}
	}
}
