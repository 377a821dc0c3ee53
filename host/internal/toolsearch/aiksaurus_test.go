package toolsearch

// Aiksaurus, the thesaurus the third round of issue 28 measured
// (thesaurus.go, testdata/README.md "Thesauri (third round)"): its two
// data files as Debian's libaiksaurus-1.2-data installs them in
// /usr/share/aiksaurus, read here for TestCandidates. Nothing of it is
// embedded or shipped: it gained nothing on the tuning needs. Aiksaurus
// (Jared Davis, 2001-2003) is under the GNU GPL, version 2 or later, so
// a table derived from it would bind the binaries that carry it.
//
// words.dat is each word (":" for a space), a NUL, the big-endian 16-bit
// numbers of its meanings, 0xFFFF; meanings.dat is each meaning's words
// by number, 0xFFFF after each (its first two are its heading, and are
// among its words again).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

const aiksaurusDir = "/usr/share/aiksaurus"

// aiksaurus is the thesaurus read once, or why it cannot be.
var aiksaurus = sync.OnceValues(func() (*thesaurus, error) { return readAiksaurus(aiksaurusDir) })

// needAiksaurus is the thesaurus, or a skip (a failure where the peers
// are required) when libaiksaurus-1.2-data is not installed.
func needAiksaurus(t *testing.T) *thesaurus {
	t.Helper()
	th, err := aiksaurus()
	if errors.Is(err, os.ErrNotExist) && !isSet("SWITCHBOARD_PEERS_REQUIRED") && !isSet("CI") {
		t.Skipf("Aiksaurus: %v (install libaiksaurus-1.2-data)", err)
	}
	if err != nil {
		t.Fatalf("Aiksaurus: %v (install libaiksaurus-1.2-data; SWITCHBOARD_PEERS_REQUIRED or $CI is set)", err)
	}
	return th
}

func readAiksaurus(dir string) (*thesaurus, error) {
	wordsDat, err := os.ReadFile(filepath.Join(dir, "words.dat"))
	if err != nil {
		return nil, err
	}
	meaningsDat, err := os.ReadFile(filepath.Join(dir, "meanings.dat"))
	if err != nil {
		return nil, err
	}
	var words []string
	for rest := wordsDat; len(rest) > 0; {
		w, after, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return nil, fmt.Errorf("%s/words.dat: a word without its NUL at byte %d", dir, len(wordsDat)-len(rest))
		}
		words = append(words, string(w))
		rest = after
		for {
			if len(rest) < 2 {
				return nil, fmt.Errorf("%s/words.dat: %q: its meanings run past the end", dir, w)
			}
			n := binary.BigEndian.Uint16(rest)
			rest = rest[2:]
			if n == 0xFFFF {
				break
			}
		}
	}
	if len(meaningsDat)%2 != 0 {
		return nil, fmt.Errorf("%s/meanings.dat: %d bytes, not 16-bit numbers", dir, len(meaningsDat))
	}
	th := &thesaurus{}
	var meaning []string
	for i := 0; i < len(meaningsDat); i += 2 {
		n := binary.BigEndian.Uint16(meaningsDat[i:])
		if n != 0xFFFF {
			if int(n) >= len(words) {
				return nil, fmt.Errorf("%s/meanings.dat: word %d of %d", dir, n, len(words))
			}
			if w := thesaurusWord(words[n]); w != "" {
				meaning = append(meaning, w)
			}
			continue
		}
		slices.Sort(meaning)
		if meaning = slices.Compact(meaning); len(meaning) >= 2 {
			th.add(meaning)
		}
		meaning = nil
	}
	return th, nil
}

// thesaurusWord is a thesaurus' word or phrase as the index can meet
// it: stemmed, two words as pair writes them, or "" for a longer phrase
// or a word of other than letters.
func thesaurusWord(w string) string {
	parts := strings.FieldsFunc(strings.ToLower(w), func(r rune) bool { return r == ':' || r == ' ' })
	if len(parts) == 0 || len(parts) > 2 {
		return ""
	}
	for i, p := range parts {
		if !plain(p) {
			return ""
		}
		parts[i] = stem(p)
	}
	return strings.Join(parts, " ")
}

// TestAiksaurus checks the thesaurus as the index reads it: "delete" is
// akin to erase, expunge and "wipe out", never to itself, each once.
func TestAiksaurus(t *testing.T) {
	th := needAiksaurus(t)
	t.Logf("%d meanings, %d words and phrases", len(th.meanings), len(th.of))
	var akin []string
	th.akin(stem("delete"), func(s string) { akin = append(akin, s) })
	for _, want := range []string{stem("erase"), stem("expunge"), pair(stem("wipe"), stem("out"))} {
		if !slices.Contains(akin, want) {
			t.Errorf("delete: %q is not among its akin words %q", want, akin)
		}
	}
	if slices.Contains(akin, stem("delete")) {
		t.Errorf("delete is akin to itself: %q", akin)
	}
	if len(akin) != len(slices.Compact(slices.Sorted(slices.Values(akin)))) {
		t.Errorf("delete: a word is there twice: %q", akin)
	}
}

// TestThesaurusHook checks what a thesaurus does to a search when the
// tuning names one: a word no tool has finds a tool by a word of the
// same meaning and says so; with thesUnseen a word some tool has is not
// looked up.
func TestThesaurusHook(t *testing.T) {
	th := &thesaurus{}
	th.add([]string{stem("delete"), stem("zorch")})
	th.add([]string{stem("file"), stem("quux")})
	docs := []Doc{
		{ID: "s__delete_file", Name: "delete_file", Server: "s", Description: "Delete a file."},
		{ID: "s__read_quux", Name: "read_quux", Server: "s", Description: "Read a quux."},
	}
	saved := tuned
	defer func() { tuned = saved }()
	// WordNet is left out: the words are the made-up thesaurus's alone.
	tuned.thes, tuned.thesaurus, tuned.rels = th, 0.3, nil
	hits := New(docs).Search("zorch it", 5)
	if len(hits) != 1 || hits[0].ID != "s__delete_file" {
		t.Fatalf("zorch it: %v, want s__delete_file alone", ids(hits))
	}
	if want := (Match{Query: "zorch", Word: "delete", Relation: "thesaurus"}); !slices.Contains(hits[0].Why, want) {
		t.Errorf("zorch it: why %v, want %v among them", hits[0].Why, want)
	}
	// "file" is a tool's word: looked up, it finds the quux too.
	if got := ids(New(docs).Search("file", 5)); !slices.Equal(got, []string{"s__delete_file", "s__read_quux"}) {
		t.Errorf("file: %v, want delete_file then read_quux", got)
	}
	tuned.thesUnseen = true
	if got := ids(New(docs).Search("file", 5)); !slices.Equal(got, []string{"s__delete_file"}) {
		t.Errorf("file, only unseen words looked up: %v, want delete_file alone", got)
	}
	tuned.thes = nil
	if got := ids(New(docs).Search("zorch it", 5)); len(got) != 0 {
		t.Errorf("zorch it, no thesaurus: %v, want nothing", got)
	}
}

// The third round's candidates: Aiksaurus alone (beside the enum values,
// as the WordNet rows are), with WordNet, instead of WordNet, and looked
// up only for words no tool has. They are measured where the package is.
func init() {
	if _, err := os.Stat(filepath.Join(aiksaurusDir, "meanings.dat")); err != nil {
		return
	}
	aik := func(t *tuning, w float64) {
		th, err := aiksaurus()
		if err != nil {
			panic(err) // the files were there a moment ago
		}
		t.thes, t.thesaurus = th, w
	}
	for _, w := range []float64{0.1, 0.2, 0.3} {
		candidates = append(candidates,
			candidate{name: fmt.Sprintf("Aiksaurus at %g alone (BM25F, enum values, no WordNet or concepts)", w), tune: func(t *tuning) {
				aik(t, w)
				t.rels, t.concepts, t.server = nil, false, 0
			}},
			candidate{name: fmt.Sprintf("as tuned, + Aiksaurus at %g", w), tune: func(t *tuning) { aik(t, w) }},
			candidate{name: fmt.Sprintf("as tuned, Aiksaurus at %g instead of WordNet", w), tune: func(t *tuning) { aik(t, w); t.rels = nil }},
			candidate{name: fmt.Sprintf("as tuned, + Aiksaurus at %g for words no tool has", w), tune: func(t *tuning) { aik(t, w); t.thesUnseen = true }},
		)
	}
	candidates = append(candidates, candidate{name: "as tuned, + Aiksaurus at 0.6", tune: func(t *tuning) { aik(t, 0.6) }})
}
