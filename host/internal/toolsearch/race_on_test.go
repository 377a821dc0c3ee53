//go:build race

package toolsearch

// raceOn says the race detector is on: it makes the word vectors'
// candidates (embed_candidates_test.go) minutes long, for figures it
// does not change.
const raceOn = true
