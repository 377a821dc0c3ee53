// Package toolsearch ranks tools against a free-text query: BM25F over a
// tool's name, its parameters and its description (DESIGN.md, "Tool search").
// It is pure Go on the standard library, so the host can carry it.
package toolsearch

import (
	"cmp"
	"math"
	"slices"
	"unicode/utf8"
)

// Doc is one tool to index.
type Doc struct {
	// ID names the tool in hits; IDs should be unique.
	ID string
	// Name is the tool's name as an agent sees it (its words count most).
	Name        string
	Description string
	Params      []Param
}

// Param is one input parameter: its name, and its description.
type Param struct {
	Name, Description string
}

// Hit is one ranked result.
type Hit struct {
	ID    string
	Score float64
}

// The fields and their weights: a word in a tool's name says more about
// what it does than a word in its parameters, which says more than one in
// prose that also explains edge cases. A parameter's own description is
// the weakest by far: it describes an input, not the tool, and a tool
// with many parameters says a great deal of it ("Repository owner",
// "Page number for pagination").
const (
	fieldName = iota
	fieldParams
	fieldDescription
	fieldParamDescription
	numFields
)

var fieldWeight = [numFields]float64{
	fieldName:             3,
	fieldParams:           1.5,
	fieldDescription:      1,
	fieldParamDescription: 0.2,
}

// BM25's usual constants: k1 saturates a term's repeats, b scales by a
// field's length against the average.
const (
	k1 = 1.2
	b  = 0.75
)

type posting struct {
	doc int32
	// score is the term's whole contribution to the doc: idf times the
	// saturated, weighted, length-normalised frequency. Search only adds.
	score float64
}

// Index is an immutable search index, safe for concurrent Search.
type Index struct {
	ids      []string
	postings map[string][]posting
}

// What of a tool is indexed: a server writes its tools' texts, and one
// with a description of megabytes would otherwise make every index build
// (each change of the tool set) that much dearer. What a model needs to
// find a tool is in the first kilobytes.
const (
	maxFieldText = 8 << 10
	maxParams    = 64
)

// head is s cut to maxFieldText bytes, at a character.
func head(s string) string {
	if len(s) <= maxFieldText {
		return s
	}
	cut := maxFieldText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// New indexes docs. Later changes to docs do not affect the index.
func New(docs []Doc) *Index {
	ix := &Index{ids: make([]string, len(docs)), postings: map[string][]posting{}}
	text := make([][numFields][]string, len(docs))
	tz := &tokenizer{stems: map[string]string{}}
	var total [numFields]float64
	for i, d := range docs {
		ix.ids[i] = d.ID
		t := &text[i]
		t[fieldName] = tz.tokens(head(d.Name))
		t[fieldDescription] = tz.tokens(head(d.Description))
		for j, p := range d.Params {
			if j == maxParams {
				break
			}
			t[fieldParams] = append(t[fieldParams], tz.tokens(head(p.Name))...)
			t[fieldParamDescription] = append(t[fieldParamDescription], tz.tokens(head(p.Description))...)
		}
		for f := range numFields {
			total[f] += float64(len(t[f]))
		}
	}
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = max(total[f]/float64(max(len(docs), 1)), 1)
	}
	// BM25F: each field's frequency is weighted and length-normalised,
	// summed, and saturated once per term and doc. The postings first
	// hold that weighted frequency; the idf is known once every doc is in.
	// Two words side by side in the name or the description are a term
	// too (pair), so "knowledge graph" says more than knowledge and graph
	// apart; they do not count in the field's length.
	acc := map[string]float64{}
	for i := range docs {
		clear(acc)
		for f := range numFields {
			w := fieldWeight[f] / (1 - b + b*float64(len(text[i][f]))/avg[f])
			for j, t := range text[i][f] {
				acc[t] += w
				if j > 0 && (f == fieldName || f == fieldDescription) {
					acc[pair(text[i][f][j-1], t)] += w
				}
			}
		}
		for t, w := range acc {
			ix.postings[t] = append(ix.postings[t], posting{doc: int32(i), score: w})
		}
	}
	n := float64(len(docs))
	for _, ps := range ix.postings {
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for j := range ps {
			w := ps[j].score
			ps[j].score = idf * w * (k1 + 1) / (w + k1)
		}
	}
	return ix
}

// Len is the number of docs indexed.
func (ix *Index) Len() int { return len(ix.ids) }

// Search returns up to k docs that share a word with query, best first;
// equal scores are ordered by ID, so the same index and query always give
// the same answer. k <= 0 means every match.
func (ix *Index) Search(query string, k int) []Hit {
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil
	}
	scores := make([]float64, len(ix.ids))
	most := 0 // docs the query can touch, so touched grows once
	for _, t := range terms {
		most += len(ix.postings[t.word])
	}
	touched := make([]int32, 0, min(most, len(ix.ids)))
	for _, t := range terms {
		for _, p := range ix.postings[t.word] {
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += t.weight * p.score
		}
	}
	better := func(x, y Hit) bool { // x ranks before y
		return x.Score > y.Score || x.Score == y.Score && x.ID < y.ID
	}
	var hits []Hit
	if k <= 0 || k >= len(touched) {
		hits = make([]Hit, 0, len(touched))
		for _, d := range touched {
			hits = append(hits, Hit{ID: ix.ids[d], Score: scores[d]})
		}
	} else {
		// Keep the best k in a heap whose root is the worst of them: a
		// query with common words touches most docs, and sorting them
		// all would cost more than the scoring.
		hits = make([]Hit, 0, k)
		for _, d := range touched {
			h := Hit{ID: ix.ids[d], Score: scores[d]}
			switch {
			case len(hits) < k:
				hits = append(hits, h)
				up(hits, len(hits)-1, better)
			case better(h, hits[0]):
				hits[0] = h
				down(hits, 0, better)
			}
		}
	}
	slices.SortFunc(hits, func(x, y Hit) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return cmp.Compare(x.ID, y.ID)
	})
	return hits
}

type term struct {
	word   string
	weight float64
}

// pairWeight scales a pair of the query's words side by side against
// its single words: a pair adds to the words' evidence, it is not more.
const pairWeight = 0.5

// pair is the term for words a and b side by side.
func pair(a, b string) string { return a + " " + b }

// queryTerms are the query's words, each once; at synonymWeight the
// words their synonyms add and the kinds of thing the query names; and
// at pairWeight each two of its words side by side.
func queryTerms(query string) []term {
	words := tokens(query)
	var pairs []term
	for j := 1; j < len(words); j++ {
		if p := pair(words[j-1], words[j]); !slices.ContainsFunc(pairs, func(t term) bool { return t.word == p }) {
			pairs = append(pairs, term{p, pairWeight})
		}
	}
	slices.Sort(words)
	words = slices.Compact(words)
	terms := make([]term, 0, len(words))
	for _, w := range words {
		terms = append(terms, term{w, 1})
	}
	var implied []string
	for _, w := range words {
		implied = append(implied, synonyms[w]...)
	}
	for _, k := range kinds(query) {
		implied = append(implied, tokens(k)...)
	}
	for _, s := range implied {
		if !slices.ContainsFunc(terms, func(t term) bool { return t.word == s }) {
			terms = append(terms, term{s, synonymWeight})
		}
	}
	return append(terms, pairs...)
}

// up and down keep h a heap with the worst hit (by better) at the root.
func up(h []Hit, i int, better func(x, y Hit) bool) {
	for i > 0 {
		parent := (i - 1) / 2
		if !better(h[parent], h[i]) {
			return
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

func down(h []Hit, i int, better func(x, y Hit) bool) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && better(h[worst], h[l]) {
			worst = l
		}
		if r < len(h) && better(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
