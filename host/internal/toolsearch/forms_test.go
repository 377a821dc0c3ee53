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
