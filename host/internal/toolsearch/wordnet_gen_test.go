package toolsearch

// TestWordNetTable derives wordnet.txt.gz, the related-words table of the
// index (DESIGN.md, "Tool search"), from the WordNet 3.0 database files
// that Debian's wordnet-base puts in /usr/share/wordnet, and checks the
// committed table is what they give; with -wordnet.write it writes the
// table (go generate does that).
//
// WordNet's licence lets anyone use, copy, modify and distribute it and
// its database for any purpose, with its notice kept: wordnet-LICENSE.
//
// For every one-word lemma that people use (WordNet's sense-tagged
// corpus met one of its senses at least once), stemmed as the index
// stems, a line with the stemmed words of its first senses, by relation:
// s the synonyms in the sense's synset, r the related ones (derivations,
// verb groups, similar and see-also), b the words one step broader
// (hypernyms), n one step narrower (hyponyms, the first few). Lemmas
// that stem alike share a line.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var writeWordNet = flag.Bool("wordnet.write", false, "write wordnet.txt.gz from "+wordNetDir)

const wordNetDir = "/usr/share/wordnet"

const (
	maxSenses   = 3  // the senses of a lemma that count, most used first
	maxNarrower = 8  // hyponyms kept per sense: a general word has hundreds
	maxWords    = 40 // related words kept per lemma
)

var posNames = map[string]string{"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}

type synset struct {
	words []string
	ptrs  []ptr
}

type ptr struct {
	sym, pos string
	offset   int64
}

func TestWordNetTable(t *testing.T) {
	if _, err := os.Stat(filepath.Join(wordNetDir, "index.verb")); err != nil {
		if isSet("SWITCHBOARD_PEERS_REQUIRED") || isSet("CI") {
			t.Fatalf("WordNet: %v (install wordnet-base; SWITCHBOARD_PEERS_REQUIRED or $CI is set)", err)
		}
		t.Skipf("WordNet: %v (install wordnet-base)", err)
	}
	table := buildWordNet(t, wordNetDir)
	if *writeWordNet {
		writeTable(t, "wordnet.txt.gz", table)
		return
	}
	if unpack("wordnet.txt.gz", wordNetGz) != string(table) {
		t.Errorf("wordnet.txt.gz is not what %s gives: run go generate", wordNetDir)
	}
}

// writeTable writes a table derived at build time (wordnet.txt.gz,
// embed.txt.gz, learned.txt.gz) packed, as the index embeds it.
func writeTable(t *testing.T, file string, table []byte) {
	t.Helper()
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	zw.Write(table)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes (%d unpacked, %d lines)", file, z.Len(), len(table), bytes.Count(table, []byte{'\n'}))
}

// isSet is internal/testkit/peers' reading of its switches: set and not
// "0" or "false".
func isSet(name string) bool {
	switch os.Getenv(name) {
	case "", "0", "false", "FALSE", "False":
		return false
	}
	return true
}

func buildWordNet(t *testing.T, dir string) []byte {
	data := map[string]map[int64]synset{}
	for _, p := range []string{"noun", "verb", "adj", "adv"} {
		data[p] = readData(t, filepath.Join(dir, "data."+p))
	}
	rel := map[string]map[string]byte{} // lemma → word → relation
	add := func(lemma, w string, r byte) {
		if !plain(w) {
			return
		}
		lemma, w = stem(lemma), stem(w)
		if w == lemma {
			return
		}
		m := rel[lemma]
		if m == nil {
			m = map[string]byte{}
			rel[lemma] = m
		}
		if old, ok := m[w]; !ok || rank(r) < rank(old) {
			m[w] = r
		}
	}
	for _, p := range []string{"noun", "verb", "adj", "adv"} {
		f, err := os.Open(filepath.Join(dir, "index."+p))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, " ") {
				continue // the licence
			}
			fs := strings.Fields(line)
			lemma := fs[0]
			nptr, _ := strconv.Atoi(fs[3])
			tagged, _ := strconv.Atoi(fs[5+nptr])
			if tagged == 0 || !plain(lemma) {
				continue
			}
			offsets := fs[6+nptr:]
			for i, o := range offsets {
				if i == maxSenses {
					break
				}
				off, _ := strconv.ParseInt(o, 10, 64)
				ss := data[p][off]
				for _, w := range ss.words {
					add(lemma, w, 's')
				}
				narrower := 0
				for _, pt := range ss.ptrs {
					var r byte
					switch pt.sym {
					case "@", "@i":
						r = 'b'
					case "~", "~i":
						if narrower == maxNarrower {
							continue
						}
						narrower++
						r = 'n'
					case "+", "$", "&", "^":
						r = 'r'
					default:
						continue
					}
					for _, w := range data[posNames[pt.pos]][pt.offset].words {
						add(lemma, w, r)
					}
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	lemmas := make([]string, 0, len(rel))
	for l := range rel {
		lemmas = append(lemmas, l)
	}
	slices.Sort(lemmas)
	var w bytes.Buffer
	for _, l := range lemmas {
		words := make([]string, 0, len(rel[l]))
		for wd := range rel[l] {
			words = append(words, wd)
		}
		slices.SortFunc(words, func(a, b string) int {
			if c := rank(rel[l][a]) - rank(rel[l][b]); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		if len(words) > maxWords {
			words = words[:maxWords]
		}
		fmt.Fprint(&w, l)
		for _, wd := range words {
			fmt.Fprintf(&w, " %c%s", rel[l][wd], wd)
		}
		fmt.Fprintln(&w)
	}
	return w.Bytes()
}

// plain says whether w is one lower-case word of letters.
func plain(w string) bool {
	for i := range len(w) {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return w != ""
}

// readData reads a data.POS file: each synset's words (adjectives'
// markers like "(a)" cut) and pointers, by offset.
func readData(t *testing.T, name string) map[int64]synset {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int64]synset{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, " ") {
			continue
		}
		body, _, _ := strings.Cut(line, " | ")
		fs := strings.Fields(body)
		off, _ := strconv.ParseInt(fs[0], 10, 64)
		n, _ := strconv.ParseInt(fs[3], 16, 64)
		var ss synset
		i := 4
		for range n {
			w, _, _ := strings.Cut(fs[i], "(")
			ss.words = append(ss.words, strings.ToLower(w))
			i += 2
		}
		np, _ := strconv.Atoi(fs[i])
		i++
		for range np {
			o, _ := strconv.ParseInt(fs[i+1], 10, 64)
			ss.ptrs = append(ss.ptrs, ptr{sym: fs[i], offset: o, pos: fs[i+2]})
			i += 4
		}
		out[off] = ss
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
