package toolsearch

import (
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
)

// TestTuningGrid, when $SWITCHBOARD_SEARCH_GRID is 1, walks the
// tuning's weights one at a time (coordinate ascent) on every tuning need
// set taken as one, keeping a step only when recall@5 rises, or MRR at the
// same recall@5, and logs each step and, once chosen, the round's checks'
// figures: how the weights in tuned were checked against a larger tuning
// set than the one they were first chosen on. The held-out set is never
// read. The learned words' weight is not walked: learned from these very
// sets, they would always ask for more; cross-validation chose it
// (TestLearnedCV).
func TestTuningGrid(t *testing.T) {
	if os.Getenv("SWITCHBOARD_SEARCH_GRID") != "1" {
		t.Skip("set SWITCHBOARD_SEARCH_GRID=1 to walk the tuning's weights")
	}
	var docs []Doc
	var pooled, checks []need
	for _, set := range needSets {
		if set == heldOutSet {
			continue
		}
		d, ns := needs(t, set)
		docs = d
		if roundChecks[set] {
			checks = append(checks, ns...)
		} else {
			pooled = append(pooled, ns...)
		}
	}
	saved := tuned
	defer func() { tuned = saved }()
	eval := func(tu tuning, ns []need) figures {
		tuned = tu
		f, _ := measure(indexRanker(New(docs)), ns, all)
		return f
	}
	type knob struct {
		name   string
		ptr    func(*tuning) *float64
		values []float64
	}
	field := func(f int) func(*tuning) *float64 { return func(tu *tuning) *float64 { return &tu.fields[f] } }
	knobs := []knob{
		{"name field", field(fieldName), []float64{2, 2.5, 3, 3.5, 4, 5}},
		{"params field", field(fieldParams), []float64{0.5, 1, 1.5, 2, 2.5}},
		{"param descriptions field", field(fieldParamDescription), []float64{0, 0.1, 0.2, 0.3, 0.5}},
		{"light", func(tu *tuning) *float64 { return &tu.light }, []float64{0.5, 0.75, 1}},
		{"phrase", func(tu *tuning) *float64 { return &tu.phrase }, []float64{0.25, 0.5, 0.75, 1}},
		{"inKind", func(tu *tuning) *float64 { return &tu.inKind }, []float64{0.25, 0.5, 0.75, 1}},
		{"cohere", func(tu *tuning) *float64 { return &tu.cohere }, []float64{0, 0.1, 0.2, 0.3, 0.5}},
		{"near", func(tu *tuning) *float64 { return &tu.near }, []float64{0, 0.1, 0.15, 0.2, 0.3}},
		{"server", func(tu *tuning) *float64 { return &tu.server }, []float64{0, 0.1, 0.2}},
		{"names", func(tu *tuning) *float64 { return &tu.names }, []float64{0.5, 1, 1.5}},
		{"plural", func(tu *tuning) *float64 { return &tu.plural }, []float64{0, 0.4, 0.8, 1.2}},
		{"destroyUnsaid", func(tu *tuning) *float64 { return &tu.destroyUnsaid }, []float64{0.4, 0.6, 0.8, 1}},
		{"changeOnRead", func(tu *tuning) *float64 { return &tu.changeOnRead }, []float64{0.5, 0.7, 0.85, 1}},
		{"readOnChange", func(tu *tuning) *float64 { return &tu.readOnChange }, []float64{0.5, 0.7, 0.85, 1}},
		{"otherServer", func(tu *tuning) *float64 { return &tu.otherServer }, []float64{0.8, 0.9, 1}},
	}
	better := func(a, b figures) bool { return a.at5 > b.at5 || a.at5 == b.at5 && a.mrr > b.mrr+1e-9 }
	cur := saved
	cur.rels = maps.Clone(saved.rels)
	best := eval(cur, pooled)
	var log strings.Builder
	fmt.Fprintf(&log, "\nas tuned: %v; checks %v\n", best, eval(cur, checks))
	for round := 0; round < 2; round++ {
		changed := false
		for _, k := range knobs {
			was := *k.ptr(&cur)
			for _, v := range k.values {
				if v == was {
					continue
				}
				try := cur
				try.rels = maps.Clone(cur.rels)
				*k.ptr(&try) = v
				if f := eval(try, pooled); better(f, best) {
					best, cur, changed = f, try, true
					fmt.Fprintf(&log, "%s %g → %g: %v\n", k.name, was, v, f)
				}
			}
		}
		for _, r := range []relation{relSynonym, relRelated, relBroader, relNarrower} {
			was := cur.rels[r]
			for _, v := range []float64{0, 0.05, 0.1, 0.15, 0.2, 0.3} {
				if v == was {
					continue
				}
				try := cur
				try.rels = maps.Clone(cur.rels)
				try.rels[r] = v
				if f := eval(try, pooled); better(f, best) {
					best, cur, changed = f, try, true
					fmt.Fprintf(&log, "WordNet %s %g → %g: %v\n", r, was, v, f)
				}
			}
		}
		if !changed {
			break
		}
	}
	fmt.Fprintf(&log, "chosen: %v; checks %v\n", best, eval(cur, checks))
	t.Log(log.String())
}
