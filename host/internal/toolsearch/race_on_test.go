//go:build race

package toolsearch

// raceOn says the race detector is on: it makes the candidates' table
// (TestCandidates) minutes long, for figures it does not change.
const raceOn = true
