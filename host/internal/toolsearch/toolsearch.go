// Package toolsearch ranks tools against a free-text query: BM25F over a
// tool's name, its parameters and its description (DESIGN.md, "Tool search").
// It is pure Go on the standard library, so the host can carry it.
package toolsearch

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"unicode/utf8"
)

// Doc is one tool to index.
type Doc struct {
	// ID names the tool in hits; IDs should be unique.
	ID string
	// Name is the tool's name as an agent sees it (its words count most).
	Name string
	// Server names the tool's server: what a query says of a server's
	// tools counts a little for each of them.
	Server      string
	Description string
	Params      []Param
}

// Param is one input parameter: its name, its description, and the
// values it takes when it names them (a JSON schema's enum): a tool's
// modes ("list", "create", "delete" of a tag tool) say what it does.
type Param struct {
	Name, Description string
	Enum              []string
}

// Hit is one ranked result.
type Hit struct {
	ID    string
	Score float64
	// Why are the words the tool matched by, best first within each of
	// the query's words, so an agent can refine its query.
	Why []Match
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

// tuning is what the candidates of issue 28 varied (TestCandidates
// measures each): the fields' weights, the weights of the words a
// query's word implies by each relation (none: no WordNet), whether a
// query word's group adds its terms instead of taking the best, and
// whether parameters' enum values count as parameter names.
type tuning struct {
	fields    [numFields]float64
	rels      map[relation]float64
	synonyms  bool
	concepts  bool
	sumGroups bool
	enums     bool
	// server weighs a server's evidence (Search) against a tool's own.
	server float64
	// names weighs the "entity" a proper name in the query implies
	// (names.go); 0 reads no names.
	names float64
	// light weighs a light verb's group (lightVerbs) against other words'.
	light float64
	// phrase weighs a word that a concept of two words has taken
	// ("put up", "reports to") against other words.
	phrase float64
	// inKind weighs a word said only inside a path, URL, file name or
	// key (kinds.go) against other words.
	inKind float64
	// cohere weighs whether a tool's server meets as many of the
	// query's words as the server that meets most (cohere.go).
	cohere float64
	// thes is a thesaurus whose words of one meaning join a query word's
	// group at weight thesaurus (thesaurus.go); none as tuned. With
	// thesUnseen only a word no tool has is looked up.
	thes       *thesaurus
	thesaurus  float64
	thesUnseen bool
	// shapes reads the kinds shapes.go finds: a statement in SQL, an
	// emoji, a commit's hash.
	shapes bool
	// quantifiers reads "everything" as "all" (quantifiers).
	quantifiers bool
	// plural weighs the "list" that a question of which things implies
	// (plural.go); 0 reads none.
	plural float64
	// near weighs the words nearest a query's word by their vectors
	// (embed.go); 0 reads none.
	near float64
	// destroyUnsaid scales a tool that does away with things (destroyWords)
	// when the query says no such word, nor any word that implies one.
	destroyUnsaid float64
	// changeOnRead scales a tool that makes or changes things (changeWords)
	// when the query asks to read (asksToRead) and says no such word.
	changeOnRead float64
	// readOnChange scales a tool that only reads (lookWords) when the query
	// opens with a verb of making or changing (asksToChange) and says no
	// word of looking: "answer alice in her thread" posts a reply, it
	// does not get the replies.
	readOnChange float64
	// otherServer scales the tools of the servers a query does not name
	// when it names one (Index.serverNamed).
	otherServer float64
	// learned weighs the tools' words that the tuning needs saying a
	// query's word went with (learned.go); 0 reads none. With
	// learnedUnseen only a word no tool says is looked up.
	learned       float64
	learnedUnseen bool
}

// tuned is the tuning an index takes when it is built.
var tuned = tuning{
	fields: [numFields]float64{
		fieldName:             3,
		fieldParams:           1.5,
		fieldDescription:      1,
		fieldParamDescription: 0.2,
	},
	// A tool that says what the user said ranks before one that says it
	// another way, and a word of like meaning before one only akin.
	// WordNet's words count for less than the hand-written synonyms and
	// concepts: they are of every walk of life, not of software, and at
	// twice these weights they cost as many needs as they found.
	rels: map[relation]float64{
		relSynonym:  0.2,
		relRelated:  0.15,
		relBroader:  0.125,
		relNarrower: 0.1,
	},
	synonyms:      true,
	concepts:      true,
	enums:         true,
	names:         0.75,
	light:         1,
	phrase:        0.5,
	inKind:        0.5,
	cohere:        0.2,
	near:          0.15,
	learned:       0.4,
	shapes:        true,
	plural:        conceptWeight,
	quantifiers:   true,
	destroyUnsaid: 0.6,
	changeOnRead:  0.7,
	readOnChange:  0.7,
	otherServer:   0.9,
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
	tune     tuning
	scratch  sync.Pool // of *scratch sized to the index
	// server is each doc's server, an index into servers.
	server  []int32
	servers []string
	// surface is, for each stemmed word, the first word the tools wrote
	// for it, to say why a tool matched in words people read.
	surface map[string]string
	// does is what each doc's name says it does (intent.go).
	does []uint8
	// serverNamed maps a server's name, as one stemmed word, to the
	// server.
	serverNamed map[string]int32
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
	ix := &Index{ids: make([]string, len(docs)), postings: map[string][]posting{}, tune: tuned}
	text := make([][numFields][]string, len(docs))
	tz := &tokenizer{stems: map[string]string{}, surface: map[string]string{}}
	var total [numFields]float64
	ix.server = make([]int32, len(docs))
	serverIndex := map[string]int32{}
	for i, d := range docs {
		ix.ids[i] = d.ID
		s, ok := serverIndex[d.Server]
		if !ok {
			s = int32(len(ix.servers))
			serverIndex[d.Server] = s
			ix.servers = append(ix.servers, d.Server)
		}
		ix.server[i] = s
		t := &text[i]
		t[fieldName] = tz.tokens(unclitic(head(d.Name)))
		t[fieldDescription] = tz.tokens(unclitic(head(d.Description)))
		for j, p := range d.Params {
			if j == maxParams {
				break
			}
			t[fieldParams] = append(t[fieldParams], tz.tokens(unclitic(head(p.Name)))...)
			if ix.tune.enums {
				for _, v := range p.Enum[:min(len(p.Enum), maxParams)] {
					t[fieldParams] = append(t[fieldParams], tz.tokens(unclitic(head(v)))...)
				}
			}
			t[fieldParamDescription] = append(t[fieldParamDescription], tz.tokens(unclitic(head(p.Description)))...)
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
			w := ix.tune.fields[f] / (1 - b + b*float64(len(text[i][f]))/avg[f])
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
	ix.surface = tz.surface
	ix.serverNamed = map[string]int32{}
	for s, name := range ix.servers {
		if ws := tokens(name); len(ws) == 1 {
			ix.serverNamed[ws[0]] = int32(s)
		}
	}
	ix.does = make([]uint8, len(docs))
	for i := range docs {
		ix.does[i] = nameDoes(text[i][fieldName])
	}
	ix.scratch.New = func() any {
		return &scratch{scores: make([]float64, len(docs)), best: make([]float64, len(docs)), cohering: ix.tune.cohere > 0,
			met: make([]bool, len(ix.servers)), serverWords: make([]float64, len(ix.servers)), factor: make([]float64, len(ix.servers))}
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

// Search returns up to k docs that match query, best first; equal scores
// are ordered by ID, so the same index and query always give the same
// answer. k <= 0 means every match.
func (ix *Index) Search(query string, k int) []Hit {
	// A query is read to maxFieldText, as a tool's text is: a need is
	// said in a sentence or two, and a caller that pastes megabytes
	// would otherwise buy a second of CPU with each search.
	query = head(query)
	terms := ix.queryTerms(query)
	if len(terms) == 0 {
		return nil
	}
	sc := ix.scratch.Get().(*scratch)
	defer ix.scratch.Put(sc)
	scores := sc.scores
	most := 0 // docs the query can touch, so touched grows once
	for _, t := range terms {
		most += len(t.ps)
	}
	touched := make([]int32, 0, min(most, len(ix.ids)))
	// A group is one word of the query with the words it implies: a doc
	// gets the best of them, not their sum, so a word with many
	// relations does not outweigh one with few.
	best := sc.best // all zero between groups
	var inGroup []int32
	// The server's evidence: for each word of the query, the best any of
	// a server's tools has, summed over the words. "toss the staging
	// deployment" is about a cluster because a cluster's tools speak of
	// deployments; the verb then picks among them (DESIGN.md, "Tool
	// search").
	var serverScore, serverBest []float64
	if ix.tune.server > 0 {
		serverScore = make([]float64, len(ix.servers))
		serverBest = make([]float64, len(ix.servers))
	}
	for g := 0; g < len(terms); {
		end := g + 1
		for end < len(terms) && terms[end].group == terms[g].group {
			end++
		}
		sc.nextGroup()
		inGroup = inGroup[:0]
		for _, t := range terms[g:end] {
			for _, p := range t.ps {
				if best[p.doc] == 0 {
					inGroup = append(inGroup, p.doc)
				}
				if ix.tune.sumGroups {
					best[p.doc] += t.weight * p.score
				} else {
					best[p.doc] = max(best[p.doc], t.weight*p.score)
				}
				sc.meet(ix.server[p.doc], t)
			}
		}
		for _, d := range inGroup {
			if scores[d] == 0 {
				touched = append(touched, d)
			}
			scores[d] += best[d]
			if serverBest != nil && terms[g].rel != "pair" {
				s := ix.server[d]
				serverBest[s] = max(serverBest[s], best[d])
			}
			best[d] = 0
		}
		for s, v := range serverBest {
			serverScore[s] += v
			serverBest[s] = 0
		}
		g = end
	}
	ix.cohered(sc, touched, scores)
	ix.weighIntent(query, terms, touched, scores)
	if serverScore != nil {
		for _, d := range touched {
			scores[d] += ix.tune.server * serverScore[ix.server[d]]
		}
	}
	better := func(x, y scored) bool { // x ranks before y
		return x.score > y.score || x.score == y.score && ix.ids[x.doc] < ix.ids[y.doc]
	}
	var top []scored
	if k <= 0 || k >= len(touched) {
		top = make([]scored, 0, len(touched))
		for _, d := range touched {
			top = append(top, scored{d, scores[d]})
		}
	} else {
		// Keep the best k in a heap whose root is the worst of them: a
		// query with common words touches most docs, and sorting them
		// all would cost more than the scoring.
		top = make([]scored, 0, k)
		for _, d := range touched {
			h := scored{d, scores[d]}
			switch {
			case len(top) < k:
				top = append(top, h)
				up(top, len(top)-1, better)
			case better(h, top[0]):
				top[0] = h
				down(top, 0, better)
			}
		}
	}
	slices.SortFunc(top, func(x, y scored) int {
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		return cmp.Compare(ix.ids[x.doc], ix.ids[y.doc])
	})
	hits := make([]Hit, len(top))
	for i, h := range top {
		hits[i] = Hit{ID: ix.ids[h.doc], Score: h.score, Why: ix.why(terms, h.doc)}
	}
	for _, d := range touched {
		scores[d] = 0
	}
	return hits
}

// scratch is a search's score arrays, one slot per doc, kept for the
// next search: at 10,000 tools they are 160 KB a query otherwise. Search
// leaves them zero.
type scratch struct {
	scores, best []float64
	// cohering, met, serverWords and factor are cohere.go's: whether it
	// is on, whether a server has met the group at hand, how many groups
	// each has met, and each server's factor once known.
	cohering            bool
	met                 []bool
	serverWords, factor []float64
}

// scored is a doc and its score while the best are picked.
type scored struct {
	doc   int32
	score float64
}

// up and down keep h a heap with the worst hit (by better) at the root.
func up(h []scored, i int, better func(x, y scored) bool) {
	for i > 0 {
		parent := (i - 1) / 2
		if !better(h[parent], h[i]) {
			return
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

func down(h []scored, i int, better func(x, y scored) bool) {
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
