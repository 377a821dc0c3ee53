package toolsearch

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"strings"
	"sync"
)

// wordNetGz is the related-words table derived from WordNet 3.0 by
// TestWordNetTable (go generate writes it): a line per stemmed word, its
// related stemmed words each behind a letter for the relation (relation).
//
//go:generate go test -run TestWordNetTable -wordnet.write
//go:embed wordnet.txt.gz
var wordNetGz []byte

// A relation is how a word the index adds to a query is related to the
// query's word, closest first: same meaning, derived or akin, broader,
// narrower (WordNet's synonyms, derivations and similar, hypernyms,
// hyponyms).
type relation byte

const (
	relSynonym  relation = 's'
	relRelated  relation = 'r'
	relBroader  relation = 'b'
	relNarrower relation = 'n'
)

func rank(r byte) int { return strings.IndexByte("srbn", r) }

func (r relation) String() string {
	switch r {
	case relSynonym:
		return "synonym"
	case relRelated:
		return "related"
	case relBroader:
		return "broader"
	case relNarrower:
		return "narrower"
	}
	return "?"
}

type related struct {
	word string
	rel  relation
}

// wordNet is the table, read on first use: a host that never searches
// never pays for it.
var wordNet = sync.OnceValue(func() map[string][]related {
	text := unpack("wordnet.txt.gz", wordNetGz)
	m := make(map[string][]related, strings.Count(text, "\n"))
	for line := range strings.Lines(text) {
		fs := strings.Fields(line)
		rs := make([]related, 0, len(fs)-1)
		for _, f := range fs[1:] {
			rs = append(rs, related{word: f[1:], rel: relation(f[0])})
		}
		m[fs[0]] = rs
	}
	return m
})

// unpack is the text of name, a table embedded gzipped: one a build
// carries, so one that does not unpack is a broken build.
func unpack(name string, gz []byte) string {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		panic("toolsearch: " + name + ": " + err.Error())
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		panic("toolsearch: " + name + ": " + err.Error())
	}
	return string(text)
}
