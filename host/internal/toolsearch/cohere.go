package toolsearch

import "math"

// The query's object decides the server: in "take just that one fix
// over from the hotfix branch" a browser's take_screenshot meets "take",
// and git's tools meet "fix" and "branch" too, so git is what the query
// is about. A server meets a group of the query when one of its tools
// has a word of the group at strongWeight or more (the query's own
// word, a synonym, a concept, a kind: not WordNet's word, nor a word
// said only inside a path); each tool's score is then scaled by
// ((met+1)/(most+1))^cohere, where met is the groups its server met and
// most the groups the server that met most did. Measured on every need
// set (testdata/README.md): 0.2 gains needs-tuning-9 two needs and loses
// none on any set; 0.4 and 0.5 gain three and lose one.
const strongWeight = 0.75

// nextGroup starts a group of the query.
func (sc *scratch) nextGroup() {
	if sc.cohering {
		clear(sc.met)
	}
}

// meet counts term t's match, in a tool of server s, for the group at
// hand.
func (sc *scratch) meet(s int32, t term) {
	if sc.cohering && !sc.met[s] && t.weight >= strongWeight && t.rel != "pair" {
		sc.met[s] = true
		sc.serverWords[s]++
	}
}

// cohered scales the touched docs' scores by their servers' share of the
// query's groups, and leaves sc's counts zero.
func (ix *Index) cohered(sc *scratch, touched []int32, scores []float64) {
	if !sc.cohering {
		return
	}
	most := 0.0
	for _, n := range sc.serverWords {
		most = max(most, n)
	}
	if most > 0 {
		// One power per server, not per doc: at 10,000 tools a query
		// touches thousands of docs of hundreds of servers. A factor
		// is never 0, so 0 is "not yet".
		for _, d := range touched {
			s := ix.server[d]
			if sc.factor[s] == 0 {
				sc.factor[s] = math.Pow((sc.serverWords[s]+1)/(most+1), ix.tune.cohere)
			}
			scores[d] *= sc.factor[s]
		}
		clear(sc.factor)
	}
	clear(sc.serverWords)
	clear(sc.met)
}
