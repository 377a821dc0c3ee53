package toolsearch

import (
	"cmp"
	"slices"
	"strings"
)

// A term is one word the query looks for: a word of its own (rel ""),
// a word one of its words implies (rel names how), a kind of thing it
// names, or two of its words side by side. Terms of one group share a
// query word, and come together.
type term struct {
	word   string
	weight float64
	group  int
	from   string // the query's word the term stands for, as written
	rel    string
	pos    int // where the query's word first is, to say why in its order
	// ps are the word's postings, looked up once: a search reads them
	// for the scores and again for each hit's why.
	ps []posting
}

// lightVerbs are the verbs that say little of what is done (stemmed):
// in "go to the dashboard", "open the login page", "put up a PR", "use the
// staging context" the object picks the tool, and the verb's own matches
// (navigate_back for "go", open_nodes for "open") mislead.
var lightVerbs = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"go", "open", "make", "put", "get", "show", "see", "tell", "give", "take", "use", "want", "need", "let", "have", "look", "bring", "keep"} {
		m[stem(w)] = true
	}
	return m
}()

// pairWeight scales a pair of the query's words side by side against
// its single words: a pair adds to the words' evidence, it is not more.
const pairWeight = 0.5

// A namedPair is the group of a concept of two words, a and b.
type namedPair struct {
	group int
	a, b  string
}

// pair is the term for words a and b side by side.
func pair(a, b string) string { return a + " " + b }

// queryTerms are the query's words, each once; in the same group the
// words its synonyms (synonyms.go), concepts (concepts.go), the tuning
// needs (learned.go) and WordNet's relations (wordnet.go) imply, if some
// tool has them; in groups of their
// own the kinds of thing the query names, each two of its words side by
// side at pairWeight, the one word two of them make, and the concepts of
// two words.
func (ix *Index) queryTerms(query string) []term {
	tz := &tokenizer{surface: map[string]string{}}
	words, parts := tz.queryTokens(unclitic(query))
	said := func(w string) string { return tz.surface[w] }
	var terms []term
	group := 0
	// phrased are the words a concept of two has taken: "put up" a PR is
	// no putting, "add up" no adding (tuning.phrase).
	phrased := map[string]bool{}
	// named are the groups of two-word concepts, to weigh as inKind
	// those said inside a name ("feature/dark-mode" is no dark mode).
	var named []namedPair
	for j := 1; j < len(words); j++ {
		p := pair(words[j-1], words[j])
		if _, ok := ix.postings[p]; ok && !slices.ContainsFunc(terms, func(t term) bool { return t.word == p }) {
			terms = append(terms, term{word: p, weight: pairWeight, group: group, from: pair(said(words[j-1]), said(words[j])), rel: "pair"})
			group++
		}
		// Two words a tool writes as one ("clean up", cleanup; "work
		// tree", worktree) are that word, in a group of their own.
		if joint := stem(words[j-1] + words[j]); ix.postings[joint] != nil {
			terms = append(terms, term{word: joint, weight: 1, group: group, from: pair(said(words[j-1]), said(words[j])), rel: "joined", pos: j - 1})
			group++
		}
		// A concept of two words ("version control") is a group of
		// its own, as the words' own are.
		if ix.tune.concepts && len(conceptTerms[p]) > 0 {
			named = append(named, namedPair{group, words[j-1], words[j]})
			from := pair(said(words[j-1]), said(words[j]))
			for _, s := range conceptTerms[p] {
				if _, ok := ix.postings[s]; ok {
					terms = append(terms, term{word: s, weight: conceptWeight, group: group, from: from, rel: "means", pos: j - 1})
					phrased[words[j-1]] = true
					phrased[words[j]] = phrased[words[j]] || !verbFirst[p]
				}
			}
			group++
		}
	}
	if ix.tune.concepts {
		ps, from, at := stopPairs(unclitic(query))
		qs, qfrom, qat := acrossQuotes(query)
		ps, from, at = append(ps, qs...), append(from, qfrom...), append(at, qat...)
		for i, p := range ps {
			added := false
			for _, s := range conceptTerms[p] {
				if _, ok := ix.postings[s]; ok {
					terms = append(terms, term{word: s, weight: conceptWeight, group: group, from: from[i], rel: "means", pos: at[i]})
					added = true
					for _, w := range strings.Fields(p) {
						phrased[w] = true
					}
				}
			}
			if added {
				group++
			}
		}
	}
	if ix.tune.plural > 0 {
		if from, at, ok := askedPlural(query); ok && ix.postings["list"] != nil {
			terms = append(terms, term{word: "list", weight: ix.tune.plural, group: group, from: from, rel: "means", pos: at})
			group++
		}
	}
	if ix.tune.concepts {
		if made := ix.madeNew(words, said, group); len(made) > 0 {
			terms = append(terms, made...)
			group++
		}
		reached, verbs := ix.reachedObjects(query, words, said, group)
		for _, v := range verbs {
			phrased[v] = true
		}
		terms = append(terms, reached...)
		group += len(verbs)
	}
	// inKind are the words that come only from inside a path, a URL, a
	// file's or a key's name: "/var/data" names a directory, not data
	// (tuning.inKind). ending are the words that are only a file name's
	// ending: the "go" of utils.go is no going, the "md" of notes.md no
	// word at all; the file's kind says what the ending does.
	inKind, ending := wordsInKinds(query, ix.tune.shapes)
	if ix.tune.inKind != 1 {
		for _, n := range named {
			if inKind[n.a] && inKind[n.b] {
				for i := range terms {
					if terms[i].group == n.group {
						terms[i].weight *= ix.tune.inKind
					}
				}
			}
		}
	}
	if ix.tune.quantifiers {
		// "stage everything", "forget everything about X": everything is
		// all of a thing, never the server named so, which people who
		// did not read the server list do not know of.
		for i, w := range words {
			if q, ok := quantifiers[w]; ok {
				if _, ok := tz.surface[q]; !ok {
					tz.surface[q] = tz.surface[w]
				}
				words[i] = q
			}
		}
	}
	purpose := purposeWords(query)
	wn := wordNet()
	first := map[string]int{}
	for i, w := range words {
		if _, ok := first[w]; !ok {
			first[w] = i
		}
	}
	slices.Sort(words)
	words = slices.Compact(words)
	own := func(w string) bool { _, ok := slices.BinarySearch(words, w); return ok }
	for _, w := range words {
		if ending[w] {
			continue
		}
		terms = append(terms, term{word: w, weight: 1, group: group, from: said(w), pos: first[w]})
		seen := map[string]bool{w: true}
		imply := func(s string, weight float64, rel string) {
			if seen[s] || own(s) {
				return
			}
			seen[s] = true
			if _, ok := ix.postings[s]; ok {
				terms = append(terms, term{word: s, weight: weight, group: group, from: said(w), rel: rel, pos: first[w]})
			}
		}
		for _, p := range parts[w] {
			imply(p, 1, "") // GitHub's "git", at best as much as the word
		}
		if ix.tune.synonyms {
			if a, ok := abbreviations[w]; ok {
				imply(a, 1, "synonym")
			}
			for _, s := range synonyms[w] {
				imply(s, synonymWeight, "synonym")
			}
		}
		if ix.tune.concepts {
			for _, s := range conceptOf(w, said(w)) {
				imply(s, conceptWeight, "means")
			}
		}
		// A word inside a path or a name names a thing, not a task.
		if ix.tune.learned > 0 && (!ix.tune.learnedUnseen || ix.postings[w] == nil) && !inKind[w] {
			for _, s := range learnedWords()[w] {
				imply(s, ix.tune.learned, "learned")
			}
		}
		if th := ix.tune.thes; th != nil && ix.tune.thesaurus > 0 && (!ix.tune.thesUnseen || ix.postings[w] == nil) {
			th.akin(w, func(s string) { imply(s, ix.tune.thesaurus, "thesaurus") })
		}
		for _, r := range wn[w] {
			if wt := ix.tune.rels[r.rel]; wt > 0 {
				imply(r.word, wt, r.rel.String())
			}
		}
		if ix.tune.near > 0 {
			for _, s := range embedNear()[w] {
				imply(s, ix.tune.near, "similar")
			}
		}
		scale := 1.0
		if lightVerbs[w] {
			scale *= ix.tune.light
		}
		if phrased[w] {
			scale *= ix.tune.phrase
		}
		if inKind[w] {
			scale *= ix.tune.inKind
		}
		if purpose[w] {
			scale *= purposeWeight
		}
		if scale != 1 {
			for i := len(terms) - 1; i >= 0 && terms[i].group == group; i-- {
				terms[i].weight *= scale
			}
		}
		group++
	}
	ks := kindsOf(query)
	if ix.tune.shapes {
		ks = append(ks, shapesOf(query)...)
	}
	if ix.tune.names > 0 {
		ks = append(ks, ix.namesOf(query)...)
	}
	for _, k := range ks {
		weight := kindWeight
		if k.kind == "entity" {
			weight = ix.tune.names
		}
		for _, s := range tokens(k.kind) {
			if !own(s) {
				terms = append(terms, term{word: s, weight: weight, group: group, from: k.word, rel: "kind", pos: len(words) + group})
				group++
			}
		}
	}
	for i := range terms {
		terms[i].ps = ix.postings[terms[i].word]
	}
	return terms
}

// A Match is why a tool matched: a word of the query (Query), the
// tool's word it met (Word), and how they are related (Relation: "" for
// the same word, else "joined" for two words a tool writes as one,
// "synonym", "means" (concepts.go), "related", "broader", "narrower"
// (WordNet), "thesaurus" (a word of one meaning in a thesaurus, when the
// tuning reads one: thesaurus.go), "similar" (a word that stands where
// the query's word stands in text, by word vectors: embed.go), "learned"
// (a tool's word that the tuning needs saying the query's word wanted:
// learned.go) or "kind", the kind of thing the query names, such as a
// URL).
type Match struct {
	Query, Word, Relation string
}

func (m Match) String() string {
	if m.Relation == "" {
		return m.Word
	}
	return m.Word + " ← " + m.Query + " (" + m.Relation + ")"
}

// why lists, for each group that met doc, the term that scored best
// there, in the words of the query and of the tools, in the query's
// order. Pairs are left out: their words say it.
func (ix *Index) why(terms []term, doc int32) []Match {
	var out []Match
	var at []int
	for g := 0; g < len(terms); {
		end := g + 1
		for end < len(terms) && terms[end].group == terms[g].group {
			end++
		}
		bestScore, bestTerm := 0.0, -1
		for i, t := range terms[g:end] {
			ps := t.ps
			if j, ok := slices.BinarySearchFunc(ps, doc, func(p posting, d int32) int { return cmp.Compare(p.doc, d) }); ok {
				if s := t.weight * ps[j].score; s > bestScore {
					bestScore, bestTerm = s, g+i
				}
			}
		}
		if bestTerm >= 0 && terms[bestTerm].rel != "pair" {
			t := terms[bestTerm]
			i, _ := slices.BinarySearch(at, t.pos)
			at = slices.Insert(at, i, t.pos)
			out = slices.Insert(out, i, Match{Query: t.from, Word: ix.said(t.word), Relation: t.rel})
		}
		g = end
	}
	return out
}

// said is a stemmed term as the tools wrote it: "delet" is "delete".
func (ix *Index) said(stemmed string) string {
	if a, b, ok := strings.Cut(stemmed, " "); ok {
		return ix.said(a) + " " + ix.said(b)
	}
	if w, ok := ix.surface[stemmed]; ok {
		return w
	}
	return stemmed
}

// wordsInKinds are the words query says only inside a path, a URL, a
// file's or a key's name, or a statement in SQL when shapes are read;
// and of them, those that are only a file name's ending.
func wordsInKinds(query string, shapes bool) (inKind, ending map[string]bool) {
	inKind, ending = map[string]bool{}, map[string]bool{}
	plain := strings.Fields(query)
	sql := len(plain)
	if shapes {
		sql = statement(plain)
		if sql < 0 {
			sql = len(plain)
		}
	}
	for i, f := range plain {
		g := strings.TrimRight(strings.Trim(f, "\"'`()[]{}<>,;:!"), ".?")
		k := ""
		if i < sql {
			k = kind(g)
		}
		if i >= sql || k != "" {
			for _, w := range tokens(f) {
				inKind[w] = true
			}
			plain[i] = ""
		}
		if dot := strings.LastIndexByte(g, '.'); k == "file" && dot > 0 {
			for _, w := range tokens(g[dot+1:]) {
				ending[w] = true
			}
		}
	}
	for _, w := range tokens(strings.Join(plain, " ")) {
		delete(inKind, w)
		delete(ending, w)
	}
	return inKind, ending
}
