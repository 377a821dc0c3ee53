package toolsearch

import "testing"

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
