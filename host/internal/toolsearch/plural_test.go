package toolsearch

import (
	"slices"
	"testing"
)

func TestAskedPlural(t *testing.T) {
	tests := []struct {
		query, want string
		at          int
	}{
		{"which keys are in the cache", "which keys", 0},
		{"so what pods run in kube-system?", "what pods", 1},
		{"which rate-limit keys start with user:", "which keys", 0},
		// No plural, a plural too far on, a plural inside a file's name.
		{"what's U123's job title", "", 0},
		{"what is the status", "", 0},
		{"which one of the three teams", "", 0},
		{"show me what's inside notes.txt", "", 0},
	}
	for _, tt := range tests {
		said, at, ok := askedPlural(tt.query)
		if ok != (tt.want != "") || said != tt.want || at != tt.at {
			t.Errorf("askedPlural(%q) = %q, %d, %v; want %q, %d", tt.query, said, at, ok, tt.want, tt.at)
		}
	}
}

// The question implies list: the list tool gains it, and says why.
func TestAskedPluralImpliesList(t *testing.T) {
	docs := []Doc{
		{ID: "list", Name: "list", Server: "redis", Description: "List Redis keys matching a pattern"},
		{ID: "get", Name: "get", Server: "redis", Description: "Get the value of a key"},
	}
	score := func(plural float64) Hit {
		ix := New(docs)
		ix.tune.plural = plural
		for _, h := range ix.Search("which keys are in the cache", 2) {
			if h.ID == "list" {
				return h
			}
		}
		t.Fatalf("plural %v: list not found", plural)
		return Hit{}
	}
	on, off := score(conceptWeight), score(0)
	if on.Score <= off.Score {
		t.Errorf("list scores %.3f with the question read, %.3f without", on.Score, off.Score)
	}
	if !slices.Contains(on.Why, Match{Query: "which keys", Word: "list", Relation: "means"}) {
		t.Errorf("why %v: no list ← which keys (means)", on.Why)
	}
}

// "everything" is all of a thing: a tool of the server named
// everything does not match it, a tool that says "all" does.
func TestEverythingIsAll(t *testing.T) {
	docs := []Doc{
		{ID: "mcp__everything__echo", Name: "mcp__everything__echo", Server: "everything", Description: "Echoes back the input"},
		{ID: "mcp__git__git_add", Name: "mcp__git__git_add", Server: "git", Description: "Stage files, or all changes, for commit"},
	}
	hits := New(docs).Search("stage everything", 5)
	if len(hits) == 0 || hits[0].ID != "mcp__git__git_add" {
		t.Fatalf("hits %v, want git_add first", hits)
	}
	for _, h := range hits[1:] {
		if slices.ContainsFunc(h.Why, func(m Match) bool { return m.Query == "everything" }) {
			t.Errorf("%s matched everything: %v", h.ID, h.Why)
		}
	}
	if !slices.Contains(hits[0].Why, Match{Query: "everything", Word: "all"}) {
		t.Errorf("why %v: no all ← everything", hits[0].Why)
	}
}
