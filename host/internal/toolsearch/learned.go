package toolsearch

import (
	_ "embed"
	"strings"
	"sync"
)

// learnedGz is the table of words learned from the tuning needs by
// TestLearnedTable (learned_gen_test.go; go generate writes it): a line
// per stemmed query word, the stemmed tools' words that needs saying it
// went with, likeliest first.
//
//go:generate env SWITCHBOARD_LEARN=1 go test -run TestLearnedTable -learned.write
//go:embed learned.txt.gz
var learnedGz []byte

// learnedWords is the table, read on first use: a host that never
// searches never pays for it. Tests swap it to measure other tables.
var learnedWords = sync.OnceValue(func() map[string][]string {
	return parseWordTable(unpack("learned.txt.gz", learnedGz))
})

// parseWordTable reads lines of words, the first the key.
func parseWordTable(text string) map[string][]string {
	m := make(map[string][]string, strings.Count(text, "\n"))
	for line := range strings.Lines(text) {
		fs := strings.Fields(line)
		if len(fs) > 1 {
			m[fs[0]] = fs[1:]
		}
	}
	return m
}
