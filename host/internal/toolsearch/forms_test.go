package toolsearch

import (
	"slices"
	"testing"
)

// A clitic is no word and an acronym's plural is the acronym: "user's"
// is no "users", "PRs" no "P" and "Rs".
func TestUnclitic(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"what's in the user's cart", "what in the user cart"},
		{"Dana’s message", "Dana message"},
		{"it doesn't load, I'm sure; we can't", "it does load, I sure; we can"},
		{"show open PRs and MRs", "show open PR and MR"},
		{"URLs, IDs; APIs.", "URL, ID; API."},
		{"'quoted' text, O'Brien, rock'n'roll", "'quoted' text, O'Brien, rock'n'roll"},
		{"Https and CSS", "Https and CSS"},
		{"plain words", "plain words"},
	} {
		if got := unclitic(tt.in); got != tt.want {
			t.Errorf("unclitic(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Words of one stem may mean different things: a concept is read by the
// word as written first, by its stem only when the form has none.
func TestConceptForms(t *testing.T) {
	if got := conceptOf(stem("called"), "called"); !slices.Contains(got, stem("name")) || slices.Contains(got, stem("network")) {
		t.Errorf(`"called" means %v, want name and no network`, got)
	}
	if got := conceptOf(stem("calls"), "calls"); !slices.Contains(got, stem("network")) {
		t.Errorf(`"calls" means %v, want network`, got)
	}
	if got := conceptOf(stem("staging"), "staging"); slices.Contains(got, "add") {
		t.Errorf(`"staging" means %v: git's stage is no namespace`, got)
	}
	// "calling" has no concept of its own: its stem's, both senses.
	if got := conceptOf(stem("calling"), "calling"); !slices.Contains(got, stem("name")) || !slices.Contains(got, stem("network")) {
		t.Errorf(`"calling" means %v, want the stem's`, got)
	}
}

// Opening a forge's work item creates it: the verb gives way to the
// pair, and the object keeps its own weight.
func TestVerbObjects(t *testing.T) {
	ix := New([]Doc{
		{ID: "create", Name: "create_pull_request", Description: "Create a new pull request"},
		{ID: "list", Name: "list_pull_requests", Description: "List open pull requests"},
		{ID: "nodes", Name: "open_nodes", Description: "Open nodes of the graph"},
	})
	hits := ix.Search("open a PR from feature to main", 3)
	if len(hits) < 2 || hits[0].ID != "create" {
		t.Fatalf("hits %+v, want create first", hits)
	}
	if !slices.Contains(hits[0].Why, Match{Query: "open pr", Word: "create", Relation: "means"}) {
		t.Errorf("why %v, want create ← open pr (means)", hits[0].Why)
	}
	var pr, open float64
	for _, tm := range ix.queryTerms("open a PR") {
		switch {
		case tm.word == "pr" && tm.rel == "":
			pr = tm.weight
		case tm.word == "open" && tm.rel == "":
			open = tm.weight
		}
	}
	if pr != 1 || open != tuned.phrase {
		t.Errorf("weights: pr %v, open %v; want 1 and %v", pr, open, tuned.phrase)
	}
}

// A word in camelCase is one word of the query, with its parts in its
// group; one cut only at digits is the whole alone.
func TestQueryTokens(t *testing.T) {
	tz := &tokenizer{surface: map[string]string{}}
	words, parts := tz.queryTokens("any JavaScript errors on GitHub for k8s v2")
	want := []string{"ani", "javascript", "error", "github", stem("k8s"), "v2"}
	if !slices.Equal(words, want) {
		t.Errorf("words %q, want %q", words, want)
	}
	if !slices.Equal(parts["javascript"], []string{"java", "script"}) || !slices.Equal(parts["github"], []string{"git", "hub"}) || parts["k8s"] != nil || parts["v2"] != nil {
		t.Errorf("parts %q", parts)
	}
}
