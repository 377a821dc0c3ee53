package toolsearch

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

// A candidate is one way to rank, measured by TestCandidates: the index
// under a tuning, or a baseline.
type candidate struct {
	name string
	// tune changes a copy of tuned; nil keeps it.
	tune func(*tuning)
	// rank, when not nil, is a baseline that is not the index.
	rank func(docs []Doc) ranker
	// without names concepts to leave out.
	without []string
	// near, when not nil, is the neighbour table in embed.txt.gz's
	// stead.
	near map[string][]string
	// embedded, when not nil, makes the candidate's rank or near from
	// the package's word vectors (embed_candidates_test.go).
	// It is given every word of the needs, stemmed.
	embedded func(wv *wordVectors, words []string) candidate
}

// secondRound are the concepts the second round of issue 28 added
// (testdata/README.md), to measure them as one.
var secondRound = []string{"company", "organisation", "organization", "vendor", "client", "partner", "supplier",
	"reports to", "works at", "works for", "leads", "manages", "belongs to", "part of", "married", "owns", "on file",
	"about", "credential", "credentials", "password", "token", "apikey", "semver", "changelog", "release notes",
	"last modified", "was created", "was changed", "how old", "is there", "are there", "any", "key in", "email",
	"failed", "errors", "broken", "head", "points to", "switch", "go back", "look up", "when was", "when were",
	"search box", "text box", "text field", "api calls", "api requests", "no longer", "throw away", "teammates", "colleagues"}

// candidates are issue 28's measurements, each from the index as it
// stands (tuned) with one thing taken away or changed, and the baselines.
var candidates = []candidate{
	{name: "word overlap (baseline)", rank: overlapRanker},
	{name: "BM25F with the kinds and joined words (no WordNet, concepts or enum values)", tune: func(t *tuning) { t.rels = nil; t.enums = false; t.concepts = false; t.server, t.cohere = 0, 0 }},
	{name: "+ enum values", tune: func(t *tuning) { t.rels = nil; t.concepts = false; t.server, t.cohere = 0, 0 }},
	{name: "+ WordNet synonyms", tune: func(t *tuning) { t.rels = pick(t.rels, relSynonym); t.concepts = false; t.server, t.cohere = 0, 0 }},
	{name: "+ WordNet related", tune: func(t *tuning) {
		t.rels = pick(t.rels, relSynonym, relRelated)
		t.concepts = false
		t.server, t.cohere = 0, 0
	}},
	{name: "+ WordNet broader", tune: func(t *tuning) {
		t.rels = pick(t.rels, relSynonym, relRelated, relBroader)
		t.concepts = false
		t.server, t.cohere = 0, 0
	}},
	{name: "+ WordNet narrower", tune: func(t *tuning) { t.concepts = false; t.server, t.cohere = 0, 0 }},
	{name: "+ concepts (as tuned)"},
	{name: "as tuned, without WordNet", tune: func(t *tuning) { t.rels = nil }},
	{name: "as tuned, WordNet synonyms only", tune: func(t *tuning) { t.rels = pick(t.rels, relSynonym) }},
	{name: "as tuned, WordNet at twice the weight", tune: func(t *tuning) {
		for r := range t.rels {
			t.rels[r] *= 2
		}
	}},
	{name: "as tuned, + the server's evidence at 0.3", tune: func(t *tuning) { t.server = 0.3 }},
	{name: "as tuned, + the server's evidence at 0.15", tune: func(t *tuning) { t.server = 0.15 }},
	{name: "as tuned, a group's terms summed, not the best", tune: func(t *tuning) { t.sumGroups = true }},
	{name: "as tuned, without the hand-written synonyms", tune: func(t *tuning) { t.synonyms = false }},
	{name: "as tuned, all fields weighing 1", tune: func(t *tuning) { t.fields = [numFields]float64{1, 1, 1, 1} }},
	// The second round (needs-heldout-b written before it).
	{name: "as tuned, without proper names", tune: func(t *tuning) { t.names = 0 }},
	{name: "as tuned, without the second round's concepts", without: secondRound},
	{name: "as tuned, a phrase's words at full weight", tune: func(t *tuning) { t.phrase = 1 }},
	{name: "as tuned, words inside a path at full weight", tune: func(t *tuning) { t.inKind = 1 }},
	{name: "as tuned, light verbs at 0.6", tune: func(t *tuning) { t.light = 0.6 }},
	{name: "as tuned, none of the four second-round changes above", without: secondRound, tune: func(t *tuning) { t.names, t.phrase, t.inKind = 0, 1, 1 }},
	// The third round (needs-tuning-8 written before it).
	{name: "as tuned, without the third round's families", without: slices.Collect(maps.Keys(families))},
	{name: "as tuned, without the verb-object pairs", without: slices.Collect(maps.Keys(verbObjects))},
	{name: "as tuned, without the families' words that needs-tuning-8 says", without: batch8Words},
	{name: "as tuned, without the families' words that needs-heldout-b says", without: heldoutBWords},
	{name: "as tuned, without the server's coherence", tune: func(t *tuning) { t.cohere = 0 }},
	{name: "as tuned, the server's coherence at 0.4", tune: func(t *tuning) { t.cohere = 0.4 }},
	// The fourth round (three blind batches measured before it).
	{name: "as tuned, without the shapes (SQL, emoji, commit hash)", tune: func(t *tuning) { t.shapes = false }},
	{name: "as tuned, without a question of which things implying list", tune: func(t *tuning) { t.plural = 0 }},
	{name: "as tuned, everything not read as all", tune: func(t *tuning) { t.quantifiers = false }},
	{name: "as tuned, without the fourth round's phrasings", without: slices.Concat(slices.Collect(maps.Keys(phrasings)), slices.Collect(maps.Keys(pageVerbs)), slices.Collect(maps.Keys(pickVerbs)))},
	// The sixth round (blind batches 8 and 9 measured before it).
	{name: "as tuned, without the sixth round's everyday families", without: slices.Collect(maps.Keys(everydayPhrasings))},
}

// batch8Words and heldoutBWords are the families' words (concepts.go)
// that the needs of needs-tuning-8 and needs-heldout-b say: the families
// were written after both sets, by a writer who had written the one and
// seen some of the other, so each set is also measured without them
// (testdata/README.md).
var (
	batch8Words   = []string{"attach", "dark mode", "dismiss", "escape", "hour", "inside", "ls", "pick", "shows up", "thumbs", "until", "what in"}
	heldoutBWords = []string{"attach", "dark mode", "dismiss", "minute", "second", "shows up", "thumbs"}
)

func init() { candidates = append(candidates, embedCandidates...) }

// pick keeps rels' weights for the relations named.
func pick(rels map[relation]float64, keep ...relation) map[relation]float64 {
	out := maps.Clone(rels)
	maps.DeleteFunc(out, func(r relation, _ float64) bool { return !slices.Contains(keep, r) })
	return out
}

// overlapRanker ranks by the number of the query's distinct words a
// tool has anywhere, then by ID: what plain word matching gives.
func overlapRanker(docs []Doc) ranker {
	words := make([]map[string]bool, len(docs))
	for i, d := range docs {
		text := []string{d.Name, d.Description}
		for _, p := range d.Params {
			text = append(text, p.Name, p.Description)
		}
		words[i] = map[string]bool{}
		for _, w := range tokens(strings.Join(text, " ")) {
			words[i][w] = true
		}
	}
	return func(q string) []string {
		qs := tokens(q)
		slices.Sort(qs)
		qs = slices.Compact(qs)
		type hit struct {
			id string
			n  int
		}
		var hits []hit
		for i, d := range docs {
			n := 0
			for _, w := range qs {
				if words[i][w] {
					n++
				}
			}
			if n > 0 {
				hits = append(hits, hit{d.ID, n})
			}
		}
		slices.SortFunc(hits, func(a, b hit) int {
			if a.n != b.n {
				return b.n - a.n
			}
			return strings.Compare(a.id, b.id)
		})
		var out []string
		for _, h := range hits[:min(len(hits), 10)] {
			out = append(out, h.id)
		}
		return out
	}
}

// TestCandidates logs (-v) a table of every candidate's figures on each
// need set (needSets), and on its needs that share no word with their
// tools: the tables of testdata/README.md.
func TestCandidates(t *testing.T) {
	if raceOn {
		// A table of figures, checked by nothing: under the race
		// detector it took four of the test run's minutes on two cores.
		t.Skip("the candidates' table is measured without the race detector")
	}
	docs, _ := needs(t, "needs-tuning")
	setNames := needSets
	if os.Getenv("SWITCHBOARD_SEARCH_HELDOUT") != "1" {
		setNames = slices.DeleteFunc(slices.Clone(needSets), func(s string) bool { return s == heldOutSet })
	}
	sets := make([][]need, len(setNames))
	for i, set := range setNames {
		_, sets[i] = needs(t, set)
	}
	noShared := func(n need) bool { return !sharesWord(docs, n) }
	var needWords []string
	for i, ns := range sets {
		if setNames[i] == heldOutSet {
			continue // the vectors' vocabulary is the tuning needs' words
		}
		for _, n := range ns {
			needWords = append(needWords, tokens(n.Query)...)
		}
	}
	slices.Sort(needWords)
	needWords = slices.Compact(needWords)
	var b strings.Builder
	b.WriteString("\n| candidate |")
	for _, set := range setNames {
		fmt.Fprintf(&b, " %s @1 | @5 | MRR | no shared word @5 |", strings.TrimPrefix(set, "needs-"))
	}
	b.WriteString("\n|" + strings.Repeat(" --- |", 1+4*len(setNames)) + "\n")
	for _, c := range candidates {
		if c.embedded != nil {
			wv, err := embedWords()
			if err != nil {
				fmt.Fprintf(&b, "| %s | left out: %v |\n", c.name, err)
				continue
			}
			name := c.name
			c = c.embedded(wv, needWords)
			c.name = name
		}
		savedNear := embedNear
		if c.near != nil {
			embedNear = func() map[string][]string { return c.near }
		}
		var rank ranker
		if c.rank != nil {
			rank = c.rank(docs)
		} else {
			saved := tuned
			tuned.rels = maps.Clone(tuned.rels)
			if c.tune != nil {
				c.tune(&tuned)
			}
			rank = indexRanker(New(docs))
			tuned = saved
		}
		// Concepts are read as a query is: they are left out while
		// the candidate is measured.
		kept, keptForms := map[string][]string{}, map[string][]string{}
		for _, from := range c.without {
			k := conceptKey(from)
			kept[k] = conceptTerms[k]
			delete(conceptTerms, k)
			if to, ok := conceptForms[from]; ok {
				keptForms[from] = to
				delete(conceptForms, from)
			}
		}
		fmt.Fprintf(&b, "| %s |", c.name)
		for _, ns := range sets {
			a, _ := measure(rank, ns, all)
			n, _ := measure(rank, ns, noShared)
			fmt.Fprintf(&b, " %.3f | %.3f | %.3f | %.3f |", a.at1, a.at5, a.mrr, n.at5)
		}
		b.WriteString("\n")
		maps.Copy(conceptTerms, kept)
		maps.Copy(conceptForms, keptForms)
		embedNear = savedNear
	}
	t.Log(b.String())
}
