// Package toolsearch ranks tools against a free-text query: BM25F over a
// tool's name, its parameters and its description (DESIGN.md, "Tool search").
// It is pure Go on the standard library, so the host can carry it.
package toolsearch

import (
	"cmp"
	"math"
	"slices"
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
// the weakest: it describes an input, not the tool.
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
	fieldParamDescription: 0.4,
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

// New indexes docs. Later changes to docs do not affect the index.
func New(docs []Doc) *Index {
	ix := &Index{ids: make([]string, len(docs)), postings: map[string][]posting{}}
	type fieldTerms struct {
		tf  map[string]int
		len int
	}
	fields := make([][numFields]fieldTerms, len(docs))
	var total [numFields]float64
	for i, d := range docs {
		ix.ids[i] = d.ID
		var text [numFields][]string
		text[fieldName] = tokens(d.Name)
		text[fieldDescription] = tokens(d.Description)
		for _, p := range d.Params {
			text[fieldParams] = append(text[fieldParams], tokens(p.Name)...)
			text[fieldParamDescription] = append(text[fieldParamDescription], tokens(p.Description)...)
		}
		for f := range numFields {
			tf := map[string]int{}
			for _, t := range text[f] {
				tf[t]++
			}
			fields[i][f] = fieldTerms{tf: tf, len: len(text[f])}
			total[f] += float64(len(text[f]))
		}
	}
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = max(total[f]/float64(max(len(docs), 1)), 1)
	}
	// BM25F: each field's frequency is weighted and length-normalised,
	// summed, and saturated once per term and doc.
	weighted := map[string][]float64{} // term -> per-doc weighted tf, aligned with docsOf
	docsOf := map[string][]int32{}
	for i := range docs {
		acc := map[string]float64{}
		for f := range numFields {
			ft := fields[i][f]
			norm := 1 - b + b*float64(ft.len)/avg[f]
			for t, n := range ft.tf {
				acc[t] += fieldWeight[f] * float64(n) / norm
			}
		}
		for t, w := range acc {
			docsOf[t] = append(docsOf[t], int32(i))
			weighted[t] = append(weighted[t], w)
		}
	}
	n := float64(len(docs))
	for t, ds := range docsOf {
		df := float64(len(ds))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		ps := make([]posting, len(ds))
		for j, d := range ds {
			w := weighted[t][j]
			ps[j] = posting{doc: d, score: idf * w * (k1 + 1) / (w + k1)}
		}
		ix.postings[t] = ps
	}
	return ix
}

// Len is the number of docs indexed.
func (ix *Index) Len() int { return len(ix.ids) }

// Search returns up to k docs that share a word with query, best first;
// equal scores are ordered by ID, so the same index and query always give
// the same answer. k <= 0 means every match.
func (ix *Index) Search(query string, k int) []Hit {
	terms := tokens(query)
	slices.Sort(terms)
	terms = slices.Compact(terms)
	if len(terms) == 0 {
		return nil
	}
	scores := make([]float64, len(ix.ids))
	var touched []int32
	for _, t := range terms {
		for _, p := range ix.postings[t] {
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += p.score
		}
	}
	hits := make([]Hit, 0, len(touched))
	for _, d := range touched {
		hits = append(hits, Hit{ID: ix.ids[d], Score: scores[d]})
	}
	slices.SortFunc(hits, func(x, y Hit) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return cmp.Compare(x.ID, y.ID)
	})
	if k > 0 && len(hits) > k {
		hits = hits[:k]
	}
	return hits
}
