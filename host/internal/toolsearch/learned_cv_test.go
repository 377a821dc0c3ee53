package toolsearch

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// blindSet says whether a tuning set was written by people who never saw
// the index (testdata/README.md): the sets that say most about needs
// nobody tuned on.
func blindSet(set string) bool {
	return strings.Contains(set, "-blind-") || set == "needs-tuning-8" || set == "needs-tuning-9" || set == "needs-heldout-b"
}

// learnWeights are the weights of learned words cross-validation tries.
var learnWeights = []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7}

// learnGrid is learnedBounds and each of its bounds moved a step either
// way: the choices cross-validation weighs.
func learnGrid() []learnBounds {
	grid := []learnBounds{learnedBounds}
	vary := func(f func(*learnBounds)) {
		b := learnedBounds
		f(&b)
		grid = append(grid, b)
	}
	vary(func(b *learnBounds) { b.unseenOnly = true })
	vary(func(b *learnBounds) { b.model1 = false })
	vary(func(b *learnBounds) { b.description = true })
	vary(func(b *learnBounds) { b.fresh = true })
	vary(func(b *learnBounds) { b.keepNames = true })
	vary(func(b *learnBounds) { b.keepFunction = true })
	vary(func(b *learnBounds) { b.keepJoined = true })
	for _, v := range []int{1, 3} {
		vary(func(b *learnBounds) { b.minNeeds = v })
	}
	for _, v := range []int{1, 3} {
		vary(func(b *learnBounds) { b.minSets = v })
	}
	for _, v := range []int{2, 5} {
		vary(func(b *learnBounds) { b.maxWords = v })
	}
	for _, v := range []float64{0.01, 0.05} {
		vary(func(b *learnBounds) { b.minShare = v })
	}
	for _, v := range []float64{0.02, 0.05} {
		vary(func(b *learnBounds) { b.maxToolShare = v })
	}
	return grid
}

// A learnChoice is one learner's bounds and weight.
type learnChoice struct {
	bounds learnBounds
	weight float64
}

func (c learnChoice) String() string {
	b := c.bounds
	var s strings.Builder
	if b.model1 {
		s.WriteString("model 1")
	} else {
		s.WriteString("lift")
	}
	if b.description {
		s.WriteString(", descriptions")
	}
	if b.fresh {
		s.WriteString(", new pairs only")
	}
	if b.keepNames {
		s.WriteString(", names kept")
	}
	if b.keepFunction {
		s.WriteString(", function words kept")
	}
	if b.keepJoined {
		s.WriteString(", camelCase runs kept")
	}
	if b.unseenOnly {
		s.WriteString(", words no tool says only")
	}
	fmt.Fprintf(&s, ", needs ≥ %d, sets ≥ %d, ≤ %d words, share ≥ %g, tool words in ≤ %g of tools, weight %g",
		b.minNeeds, b.minSets, b.maxWords, b.minShare, b.maxToolShare, c.weight)
	return s.String()
}

// learnedFigures measures ns with table at each of learnWeights, for
// every query word or only those no tool says.
func learnedFigures(docs []Doc, ns []need, table map[string][]string, unseenOnly bool) []figures {
	savedTable, savedTune := learnedWords, tuned
	defer func() { learnedWords, tuned = savedTable, savedTune }()
	learnedWords = func() map[string][]string { return table }
	tuned.learnedUnseen = unseenOnly
	out := make([]figures, len(learnWeights))
	for i, w := range learnWeights {
		tuned.learned = w
		out[i], _ = measure(indexRanker(New(docs)), ns, all)
	}
	return out
}

// without is sets but those whose index is in leave.
func without(sets [][]need, leave ...int) [][]need {
	var out [][]need
	for i, ns := range sets {
		if !slices.Contains(leave, i) {
			out = append(out, ns)
		}
	}
	return out
}

// gain is the mean over sets of a figure's gain, and of MRR's, given
// the figures with (got) and without (base) learned words.
func gain(got, base []figures, sets []int, at func(figures) float64) (float64, float64) {
	var d, m float64
	for _, i := range sets {
		d += at(got[i]) - at(base[i])
		m += got[i].mrr - base[i].mrr
	}
	return d / float64(len(sets)), m / float64(len(sets))
}

func at5(f figures) float64 { return f.at5 }

// TestLearnedCV measures the learned words by leave-one-set-out
// cross-validation over the tuning sets (learnSets): for each set, the
// table learned from all the others, measured on it against the index
// without learned words. It logs (-v) the gain of every choice of
// learnGrid and learnWeights, the chosen one's per set, and a nested
// estimate: for each set, the choice that gains most on the other sets,
// each measured learning from the rest, then measured on it. A choice
// is better by the mean over the sets of the recall@5 gained, then of
// the MRR gained. It takes minutes, so it runs only when
// $SWITCHBOARD_LEARN_CV is set.
func TestLearnedCV(t *testing.T) {
	if !isSet("SWITCHBOARD_LEARN_CV") {
		t.Skip("SWITCHBOARD_LEARN_CV is not set")
	}
	docs := corpusDocs(t, "corpus", "corpus-extra")
	sets := make([][]need, len(learnSets))
	base := make([]figures, len(sets))
	saved := tuned
	tuned.learned = 0
	for i, set := range learnSets {
		_, sets[i] = needs(t, set)
		base[i], _ = measure(indexRanker(New(docs)), sets[i], all)
	}
	tuned = saved
	grid := learnGrid()
	// loo[g][s][w]: choice (g, w) on set s, learned from the others.
	// lto[g][h][s][w]: on set s, learned from all but s and h.
	loo := make([][][]figures, len(grid))
	lto := make([][][][]figures, len(grid))
	for g, bounds := range grid {
		loo[g] = make([][]figures, len(sets))
		lto[g] = make([][][]figures, len(sets))
		for s := range sets {
			loo[g][s] = learnedFigures(docs, sets[s], learn(docs, without(sets, s), bounds), bounds.unseenOnly)
			lto[g][s] = make([][]figures, len(sets))
		}
		for h := range sets {
			for s := h + 1; s < len(sets); s++ {
				table := learn(docs, without(sets, h, s), bounds)
				lto[g][h][s] = learnedFigures(docs, sets[s], table, bounds.unseenOnly)
				lto[g][s][h] = learnedFigures(docs, sets[h], table, bounds.unseenOnly)
			}
		}
	}
	every := make([]int, len(sets))
	var blind, other []int
	for s, set := range learnSets {
		every[s] = s
		if blindSet(set) {
			blind = append(blind, s)
		} else {
			other = append(other, s)
		}
	}
	// at is choice (g, w)'s figures on each set, from figs[s][w].
	at := func(figs [][]figures, w int) []figures {
		out := make([]figures, len(figs))
		for s := range figs {
			if figs[s] != nil {
				out[s] = figs[s][w]
			}
		}
		return out
	}
	var b strings.Builder
	b.WriteString("\n| choice | recall@5 gained, mean | blind sets | the others | recall@1 gained | MRR gained |\n| --- | --- | --- | --- | --- | --- |\n")
	bestG, bestW, best5, bestM := -1, -1, 0.0, 0.0
	for g := range grid {
		for w, weight := range learnWeights {
			got := at(loo[g], w)
			d5, dm := gain(got, base, every, at5)
			b5, _ := gain(got, base, blind, at5)
			o5, _ := gain(got, base, other, at5)
			d1, _ := gain(got, base, every, func(f figures) float64 { return f.at1 })
			fmt.Fprintf(&b, "| %v | %+.4f | %+.4f | %+.4f | %+.4f | %+.4f |\n", learnChoice{grid[g], weight}, d5, b5, o5, d1, dm)
			if bestG < 0 || d5 > best5 || d5 == best5 && dm > bestM {
				bestG, bestW, best5, bestM = g, w, d5, dm
			}
		}
	}
	t.Log(b.String())
	b.Reset()
	t.Logf("the best choice: %v (recall@5 gained, mean %+.4f)", learnChoice{grid[bestG], learnWeights[bestW]}, best5)
	// The figures below are the index's own choice's: learnedBounds at
	// tuned.learned, which testdata/README.md says why, where the best
	// is not it.
	chosenW := slices.Index(learnWeights, tuned.learned)
	if chosenW < 0 {
		t.Fatalf("tuned.learned %g is no weight of learnWeights", tuned.learned)
	}
	chosen := learnChoice{learnedBounds, tuned.learned}
	// The nested estimate: the choice for set h is made without h.
	nested := make([]figures, len(sets))
	var picks []string
	for h := range sets {
		rest := slices.DeleteFunc(slices.Clone(every), func(s int) bool { return s == h })
		pg, pw, p5, pm := -1, -1, 0.0, 0.0
		for g := range grid {
			for w := range learnWeights {
				d5, dm := gain(at(lto[g][h], w), base, rest, at5)
				if pg < 0 || d5 > p5 || d5 == p5 && dm > pm {
					pg, pw, p5, pm = g, w, d5, dm
				}
			}
		}
		nested[h] = loo[pg][h][pw]
		picks = append(picks, fmt.Sprintf("%s: %v", strings.TrimPrefix(learnSets[h], "needs-"), learnChoice{grid[pg], learnWeights[pw]}))
	}
	t.Logf("nested choices:\n%s", strings.Join(picks, "\n"))
	chosenFigs := at(loo[0], chosenW)
	b.WriteString("\n| set | needs | without @1 | @5 | MRR | learned from the other sets @1 | @5 | MRR | @5 gained | nested @5 gained |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for s, set := range learnSets {
		f, g, n := base[s], chosenFigs[s], nested[s]
		name := strings.TrimPrefix(set, "needs-")
		if blindSet(set) {
			name += " (blind)"
		}
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %+.3f (%+.0f) | %+.3f (%+.0f) |\n", name, f.n,
			f.at1, f.at5, f.mrr, g.at1, g.at5, g.mrr, g.at5-f.at5, (g.at5-f.at5)*float64(f.n), n.at5-f.at5, (n.at5-f.at5)*float64(f.n))
	}
	for _, row := range []struct {
		name string
		sets []int
	}{{"mean, every set", every}, {"mean, blind sets", blind}, {"mean, the others", other}} {
		d5, dm := gain(chosenFigs, base, row.sets, at5)
		d1, _ := gain(chosenFigs, base, row.sets, func(f figures) float64 { return f.at1 })
		n5, nm := gain(nested, base, row.sets, at5)
		n1, _ := gain(nested, base, row.sets, func(f figures) float64 { return f.at1 })
		fmt.Fprintf(&b, "| %s, gained | | | | | %+.3f | %+.3f | %+.3f | | %+.3f (@1 %+.3f, MRR %+.3f) |\n", row.name, d1, d5, dm, n5, n1, nm)
	}
	t.Log(b.String())
	// Writers who read the same tool lists write alike: the gain on the
	// needs that have no near twin in the sets learned from.
	b.Reset()
	b.WriteString("\n| set | needs without a near twin in the other sets | without learned words @5 | with @5 | gained |\n| --- | --- | --- | --- | --- |\n")
	savedTable := learnedWords
	var sum float64
	for s, set := range learnSets {
		twin := twinAmong(without(sets, s))
		alone := func(n need) bool { return !twin(n) }
		tuned.learned = 0
		f, _ := measure(indexRanker(New(docs)), sets[s], alone)
		table := learn(docs, without(sets, s), chosen.bounds)
		learnedWords = func() map[string][]string { return table }
		tuned.learned = chosen.weight
		g, _ := measure(indexRanker(New(docs)), sets[s], alone)
		tuned, learnedWords = saved, savedTable
		sum += g.at5 - f.at5
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %+.3f |\n", strings.TrimPrefix(set, "needs-"), f.n, f.at5, g.at5, g.at5-f.at5)
	}
	fmt.Fprintf(&b, "| mean | | | | %+.3f |\n", sum/float64(len(sets)))
	t.Log(b.String())
}
