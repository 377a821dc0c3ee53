package toolsearch

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A need is one line of testdata/needs-*.json: a task as a person or an
// agent says it, and every tool that would do (as "server/tool").
type need struct {
	Query  string   `json:"query"`
	Accept []string `json:"accept"`
}

// The need sets: needs-tuning, which the index may be tuned on;
// needs-heldout and needs-heldout-b, each written before the changes it
// judged and never tuned on in the first two rounds; since the third
// round, which read their misses, they are tuning data, as are
// needs-tuning-8, written before the third round's changes and measured
// once before them, and needs-tuning-9, written after them and measured
// once before any later change. needs-heldout-c was written blind (by
// writers who read only the tool lists) before the third round, and is
// never tuned on; needs-tuning-blind-1 to -3 were written the same way
// and are the fourth round's tuning data, as blind-4 to -7 are the
// fifth round's (blind-5 and -7 as its checks, read only after each
// decision), and blind-8 and -9 the sixth round's (blind-9 and tuning-8
// its checks); blind-9 and blind-5 the seventh round's first tuner's
// checks; blind-10 and -11, written blind over set c's two halves
// of the servers, are the seventh round's checks: measured before it
// and after it, tuned on by none of it. blind-12 to -15, written blind
// in harder voices (shorthand, plain words, hand-offs, the less obvious
// tools), were measured once before the seventh round and are its
// tuning data (testdata/README.md says how each was written).
var needSets = []string{"needs-tuning", "needs-heldout", "needs-heldout-b", "needs-tuning-8", "needs-tuning-9", "needs-tuning-blind-1", "needs-tuning-blind-2", "needs-tuning-blind-3", "needs-tuning-blind-4", "needs-tuning-blind-5", "needs-tuning-blind-6", "needs-tuning-blind-7", "needs-tuning-blind-8", "needs-tuning-blind-9", "needs-tuning-blind-10", "needs-tuning-blind-11", "needs-tuning-blind-12", "needs-tuning-blind-13", "needs-tuning-blind-14", "needs-tuning-blind-15", "needs-heldout-c"}

// heldOutSet is the need set nobody tunes on. Its misses are never
// logged, and TestCandidates measures candidates on it only when
// $SWITCHBOARD_SEARCH_HELDOUT is 1 (for the README's final table), so
// that no choice is made on it by accident.
const heldOutSet = "needs-heldout-c"

// roundChecks are the need sets the round being tuned keeps apart, to
// see whether what it learns carries: no tuning figure counts them.
var roundChecks = map[string]bool{"needs-tuning-blind-10": true, "needs-tuning-blind-11": true}

func needs(t testing.TB, set string) ([]Doc, []need) {
	t.Helper()
	docs := corpusDocs(t, "corpus", "corpus-extra")
	var ns []need
	readJSON(t, "testdata/"+set+".json", &ns)
	return docs, ns
}

// acceptIDs are a need's tools as index IDs.
func acceptIDs(n need) []string {
	var out []string
	for _, a := range n.Accept {
		server, tool, _ := strings.Cut(a, "/")
		out = append(out, exposed(server, tool))
	}
	return out
}

// sharesWord says whether the need has a word (stemmed, as the index
// reads words) in common with any of its tools' names, descriptions,
// parameters' names or parameters' descriptions. The needs that share
// none are the ones only meaning can find.
func sharesWord(docs []Doc, n need) bool {
	q := tokens(n.Query)
	for _, id := range acceptIDs(n) {
		i := slices.IndexFunc(docs, func(d Doc) bool { return d.ID == id })
		if i < 0 {
			continue
		}
		d := docs[i]
		text := []string{d.Name, d.Description}
		for _, p := range d.Params {
			text = append(text, p.Name, p.Description)
		}
		for _, w := range tokens(strings.Join(text, " ")) {
			if slices.Contains(q, w) {
				return true
			}
		}
	}
	return false
}

// figures are a ranker's results on a set of needs: the share of needs
// whose first hit is acceptable, that have one in the first five, and
// the mean reciprocal rank of the first acceptable hit in the top 10.
type figures struct {
	n             int
	at1, at5, mrr float64
}

func (f figures) String() string {
	return fmt.Sprintf("n=%d recall@1 %.3f recall@5 %.3f MRR %.3f", f.n, f.at1, f.at5, f.mrr)
}

// ranker returns the ranked IDs for a query, best first.
type ranker func(query string) []string

// measure scores rank on ns; only the needs for which keep is true count.
// misses gets a line for each counted need with no acceptable tool in
// the top 5.
func measure(rank ranker, ns []need, keep func(need) bool) (f figures, misses []string) {
	for _, n := range ns {
		if !keep(n) {
			continue
		}
		f.n++
		got := rank(n.Query)
		want := acceptIDs(n)
		pos := slices.IndexFunc(got, func(id string) bool { return slices.Contains(want, id) })
		if pos == 0 {
			f.at1++
		}
		if pos >= 0 && pos < 5 {
			f.at5++
		} else {
			first := "nothing"
			if len(got) > 0 {
				first = got[0]
			}
			misses = append(misses, fmt.Sprintf("%q: want %s, #%d; first %s", n.Query, strings.Join(n.Accept, " "), pos+1, first))
		}
		if pos >= 0 && pos < 10 {
			f.mrr += 1 / float64(pos+1)
		}
	}
	if f.n > 0 {
		f.at1 /= float64(f.n)
		f.at5 /= float64(f.n)
		f.mrr /= float64(f.n)
	}
	return f, misses
}

func indexRanker(ix *Index) ranker {
	return func(q string) []string { return ids(ix.Search(q, 10)) }
}

func all(need) bool { return true }

// needFloor is each need set's recall@5, on all its needs and on those
// that share no word with their tools, as the index stands, less a
// rounding: the ranking is deterministic, so a change that loses a need
// fails here. Issue 28's goal for the held-out set is 0.9 and 0.5; the
// goal is logged beside the figures until it is met, then it is the
// floor, as it is since the seventh round. needs-tuning's no-shared-word
// floor went from 0.95 to 0.94 then: the learned words (learned.go),
// chosen by cross-validation over every tuning set, lose one of its 71
// such needs and gain on the other sets (testdata/README.md, "Learned
// words").
var needFloor = map[string][2]float64{
	"needs-tuning":          {0.98, 0.94},
	"needs-heldout":         {0.99, 0.97},
	"needs-heldout-b":       {1.00, 1.00},
	"needs-tuning-8":        {0.96, 0.95},
	"needs-tuning-9":        {0.96, 1.00},
	"needs-tuning-blind-1":  {0.98, 1.00},
	"needs-tuning-blind-2":  {1.00, 1.00},
	"needs-tuning-blind-3":  {0.98, 0.96},
	"needs-tuning-blind-4":  {0.98, 0.97},
	"needs-tuning-blind-5":  {1.00, 1.00},
	"needs-tuning-blind-6":  {0.96, 1.00},
	"needs-tuning-blind-7":  {1.00, 1.00},
	"needs-tuning-blind-8":  {0.96, 0.93},
	"needs-tuning-blind-9":  {0.95, 0.87},
	"needs-tuning-blind-10": {0.96, 0.96},
	"needs-tuning-blind-11": {0.90, 0.83},
	"needs-tuning-blind-12": {1.00, 1.00},
	"needs-tuning-blind-13": {0.95, 0.93},
	"needs-tuning-blind-14": {0.98, 0.97},
	"needs-tuning-blind-15": {0.91, 0.85},
	"needs-heldout-c":       {0.92, 0.88},
}

// needGoal is issue 28's goal for held-out recall@5: on all needs, and on
// those that share no word with their tools.
var needGoal = [2]float64{0.9, 0.5}

// TestNeeds checks the need sets name tools of the corpus, logs (-v) the
// index's figures on each set, on its needs that share no word with
// their tools, and every need it missed but the held-out set's, and
// fails when recall@5 drops below needFloor.
func TestNeeds(t *testing.T) {
	for _, set := range needSets {
		t.Run(set, func(t *testing.T) {
			docs, ns := needs(t, set)
			have := map[string]bool{}
			for _, d := range docs {
				have[d.ID] = true
			}
			servers := map[string]bool{}
			for _, n := range ns {
				for i, id := range acceptIDs(n) {
					if !have[id] {
						t.Errorf("need %q: no tool %s in the corpus", n.Query, id)
					}
					servers[strings.Split(n.Accept[i], "/")[0]] = true
				}
			}
			noShared := func(n need) bool { return !sharesWord(docs, n) }
			rank := indexRanker(New(docs))
			f, misses := measure(rank, ns, all)
			g, _ := measure(rank, ns, noShared)
			t.Logf("%d tools, %d servers; all: %v; no shared word: %v", len(docs), len(servers), f, g)
			if set != heldOutSet {
				for _, m := range misses {
					t.Log(m)
				}
			}
			floor := needFloor[set]
			if f.at5 < floor[0] || g.at5 < floor[1] {
				t.Errorf("recall@5 %.3f, no shared word %.3f: below the floor %.2f, %.2f: the ranking got worse", f.at5, g.at5, floor[0], floor[1])
			}
			if set == heldOutSet {
				twin := twinOfTuning(t)
				a, _ := measure(rank, ns, func(n need) bool { return !twin(n) })
				t.Logf("its needs with no near twin among the tuning needs (%d of %d): %v", a.n, len(ns), a)
			}
			if set == heldOutSet && (f.at5 < needGoal[0] || g.at5 < needGoal[1]) {
				t.Logf("issue 28's goal, recall@5 %.2f and %.2f with no shared word, is not met", needGoal[0], needGoal[1])
			}
		})
	}
}

// TestNeedsPooled logs (-v) the index's figures on every tuning need
// set taken as one (not the round's checks), the figure issue 28 holds the held-out set's within
// 0.1 of: the sets differ in size, so their mean would weigh a need of a
// small set more.
func TestNeedsPooled(t *testing.T) {
	var docs []Doc
	var pooled []need
	for _, set := range needSets {
		if set == heldOutSet || roundChecks[set] {
			continue
		}
		d, ns := needs(t, set)
		docs, pooled = d, append(pooled, ns...)
	}
	rank := indexRanker(New(docs))
	f, _ := measure(rank, pooled, all)
	g, _ := measure(rank, pooled, func(n need) bool { return !sharesWord(docs, n) })
	t.Logf("every tuning set as one: %v; no shared word: %v", f, g)
}

// TestHeldOutShareNoWord checks every need set (testdata/needs-*.json)
// without ranking anything: each accepted tool is a tool of the corpora,
// no query is there twice, and it logs how many needs share no word with
// their tools. The sets written blind, by writers who read only the tool
// lists (needs-heldout-c, needs-tuning-blind-*), must have at least a
// third of such needs, as issue 28 asks of a held-out set.
func TestHeldOutShareNoWord(t *testing.T) {
	files, err := filepath.Glob("testdata/needs-*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/needs-*.json")
	}
	for _, file := range files {
		set := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(set, func(t *testing.T) {
			docs, ns := needs(t, set)
			if len(ns) == 0 {
				t.Fatalf("%s: no needs", file)
			}
			have := map[string]bool{}
			for _, d := range docs {
				have[d.ID] = true
			}
			seen := map[string]bool{}
			none := 0
			for _, n := range ns {
				if seen[n.Query] {
					t.Errorf("%s: need %q is there twice", file, n.Query)
				}
				seen[n.Query] = true
				if len(n.Accept) == 0 {
					t.Errorf("%s: need %q accepts no tool", file, n.Query)
				}
				for i, id := range acceptIDs(n) {
					if !have[id] {
						t.Errorf("%s: need %q: no tool %s in the corpora", file, n.Query, n.Accept[i])
					}
				}
				if !sharesWord(docs, n) {
					none++
				}
			}
			t.Logf("%d needs, %d share no word with their tools", len(ns), none)
			if (strings.HasPrefix(set, "needs-heldout-c") || strings.Contains(set, "-blind")) && 3*none < len(ns) {
				t.Errorf("%s: %d of %d needs share no word with their tools, want at least a third", file, none, len(ns))
			}
		})
	}
}

// twinOfTuning says whether a need has a near twin among the tuning
// needs: one whose words (as the index reads them) are at least half
// the same (Jaccard). The writers of the held-out and the tuning sets
// read the same tool lists and write alike ("squash and land PR #482"
// came from two of them, apart), so the held-out figure is also taken
// without such needs: the part a tuning set could not have said first.
func twinOfTuning(t *testing.T) func(need) bool {
	var tuning [][]need
	for _, set := range needSets {
		if set == heldOutSet {
			continue
		}
		_, ns := needs(t, set)
		tuning = append(tuning, ns)
	}
	return twinAmong(tuning)
}

// twinAmong says whether a need has a near twin among sets' needs, as
// twinOfTuning does.
func twinAmong(sets [][]need) func(need) bool {
	var tuning []map[string]bool
	for _, ns := range sets {
		for _, n := range ns {
			tuning = append(tuning, wordSet(n.Query))
		}
	}
	return func(n need) bool {
		w := wordSet(n.Query)
		for _, v := range tuning {
			both := 0
			for x := range w {
				if v[x] {
					both++
				}
			}
			if 2*both >= len(w)+len(v)-both {
				return true
			}
		}
		return false
	}
}

func wordSet(text string) map[string]bool {
	m := map[string]bool{}
	for _, w := range tokens(text) {
		m[w] = true
	}
	return m
}
