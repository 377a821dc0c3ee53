package toolsearch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAsksToRead(t *testing.T) {
	for query, want := range map[string]bool{
		"What's in the cache":       true,
		"show\tme the pods":         true,
		"List: all repos":           true,
		"did CI pass on #311?":      true,
		"create a page for the 1:1": false,
		"":                          false,
		"   ":                       false,
	} {
		if got := asksToRead(query); got != want {
			t.Errorf("asksToRead(%q) = %v, want %v", query, got, want)
		}
	}
	if !asksToChange("Rename: the page") || asksToChange("what changed") {
		t.Error("asksToChange reads the first word as asksToRead does")
	}
}

// A server whose name is also a word of English is named only as a
// place ("in notion"), so a need that says the word for what it means
// does not rank every other server's tools lower.
func TestServerNamedOnlyAsAPlace(t *testing.T) {
	docs := corpusDocs(t, "corpus", "corpus-extra")
	named := New(docs)
	saved := tuned
	tuned.otherServer = 1
	unweighed := New(docs)
	tuned = saved
	for query, names := range map[string]bool{
		"how much memory does the pod use":       false,
		"is there slack in the schedule":         false,
		"find the launch notes in notion":        true,
		"find the launch notes in our notion":    true,
		"what do you have in memory about Dana?": true,
		"list my github repos":                   true, // no English word: named wherever it is said
	} {
		same := cmp.Equal(named.Search(query, 0), unweighed.Search(query, 0))
		if same == names {
			t.Errorf("%q: names a server %v, want %v", query, !same, names)
		}
	}
}
