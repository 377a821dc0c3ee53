package toolsearch

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"mcp__github__create_issue", []string{"mcp", "github", "creat", "issu"}},
		{"getFileInfo", []string{"get", "file", "info", "getfileinfo"}},
		{"GitHub github", []string{"git", "hub", "github", "github"}},
		{"read-multiple-files", []string{"read", "multipl", "file"}},
		{"URLPath h1", []string{"url", "path", "urlpath", "h", "1", "h1"}},
		{"Add the two numbers", []string{"add", "two", "number"}},
		{"listing listed lists", []string{"list", "list", "list"}},
		{"creating created creates", []string{"creat", "creat", "creat"}},
		{"running branches entries", []string{"run", "branch", "entri"}},
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tokens(tt.in)); diff != "" {
			t.Errorf("tokens(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

var docs = []Doc{
	{ID: "mcp__demo__add", Name: "mcp__demo__add", Description: "Adds two numbers.",
		Params: []Param{{Name: "a", Description: "the first number"}, {Name: "b", Description: "the second number"}}},
	{ID: "mcp__demo__echo", Name: "mcp__demo__echo", Description: "Returns the given text.",
		Params: []Param{{Name: "text", Description: "text to return"}}},
	{ID: "mcp__fs__read_file", Name: "mcp__fs__read_file", Description: "Read the complete contents of a file.",
		Params: []Param{{Name: "path"}}},
	{ID: "mcp__fs__write_file", Name: "mcp__fs__write_file", Description: "Create a new file or overwrite one.",
		Params: []Param{{Name: "path"}, {Name: "content"}}},
	{ID: "mcp__gh__create_issue", Name: "mcp__gh__create_issue", Description: "Create a new issue in a repository.",
		Params: []Param{{Name: "owner"}, {Name: "repo"}, {Name: "title"}, {Name: "body", Description: "issue text"}}},
}

func ids(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func TestSearch(t *testing.T) {
	ix := New(docs)
	tests := []struct {
		query string
		first string
	}{
		{"add two numbers", "mcp__demo__add"},
		{"read a file", "mcp__fs__read_file"},
		{"writeFile", "mcp__fs__write_file"},
		{"open an issue on a repo", "mcp__gh__create_issue"},
		{"echo", "mcp__demo__echo"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 3)
		if len(hits) == 0 || hits[0].ID != tt.first {
			t.Errorf("Search(%q) = %v, want %s first", tt.query, ids(hits), tt.first)
		}
	}
	if hits := ix.Search("the of a", 5); hits != nil {
		t.Errorf("stop words only: %v", hits)
	}
	if hits := ix.Search("zebra", 5); len(hits) != 0 {
		t.Errorf("no match: %v", hits)
	}
	if hits := ix.Search("file", 1); len(hits) != 1 {
		t.Errorf("k=1: %d hits", len(hits))
	}
	if hits := ix.Search("file", 0); len(hits) != 2 {
		t.Errorf("k=0: %v, want every match", ids(hits))
	}
}

// TestSearchTies: equal scores come back in ID order, whatever the order
// of the docs.
func TestSearchTies(t *testing.T) {
	d := []Doc{{ID: "c", Name: "same"}, {ID: "a", Name: "same"}, {ID: "b", Name: "same"}}
	for range 3 {
		got := ids(New(d).Search("same", 0))
		if !slices.Equal(got, []string{"a", "b", "c"}) {
			t.Fatalf("ties: %v", got)
		}
		slices.Reverse(d)
	}
}

func TestEmpty(t *testing.T) {
	if hits := New(nil).Search("anything", 5); len(hits) != 0 {
		t.Errorf("empty index: %v", hits)
	}
}

func FuzzTokens(f *testing.F) {
	f.Add("mcp__github__createIssue")
	f.Add("ÜberTool_ß 12abc")
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range tokens(s) {
			if tok == "" {
				t.Fatalf("empty token from %q", s)
			}
		}
		New([]Doc{{ID: "x", Name: s, Description: s}}).Search(s, 3)
	})
}

// FuzzSearch searches the real tools with any query: the readings of a
// need's forms (pasted ids, paths, commands, quotes, SQL, questions)
// must not fail on what a caller can send, and every hit says why.
func FuzzSearch(f *testing.F) {
	ix := New(corpusDocs(f, "corpus", "corpus-extra"))
	for _, q := range []string{
		"land acme/web#412 once CI is green", "what changed in src/router.ts:88?", "run `env` inside redis-0",
		"nuke rate:user:42 and ./build", "SELECT * FROM users WHERE id = 1;", "give Priya's post a 🎉",
		"mark 'Draft v1' as done in notion", "don't forget: a.go, b.py", "\"unclosed 'quote `tick", "#",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		for _, h := range ix.Search(q, 10) {
			if len(h.Why) == 0 {
				t.Fatalf("%q: %s matched with no why", q, h.ID)
			}
		}
	})
}

// TestTopK: the heap that keeps the best k agrees with sorting every
// match and cutting.
func TestTopK(t *testing.T) {
	docs, queries := synthetic(2000)
	ix := New(docs)
	for _, q := range queries[:20] {
		all := ix.Search(q, 0)
		for _, k := range []int{1, 5, 37} {
			want := all[:min(k, len(all))]
			if diff := cmp.Diff(want, ix.Search(q, k)); diff != "" {
				t.Fatalf("Search(%q, %d) (-sorted +heap):\n%s", q, k, diff)
			}
		}
	}
}

func TestQueryTerms(t *testing.T) {
	ix := New([]Doc{{ID: "x", Name: "delete_directory", Description: "Remove a directory of a pull request."}})
	var got []string
	for _, tm := range ix.queryTerms("remove the folder of a PR") {
		got = append(got, fmt.Sprintf("%d %s %.2f %s %s", tm.group, tm.word, tm.weight, tm.from, tm.rel))
	}
	want := []string{
		"0 folder 1.00 folder ",
		"0 directori 0.80 folder synonym",
		"1 pr 1.00 pr ",
		"1 request 0.80 pr synonym",
		"1 pull request 0.80 pr synonym",
		"2 remov 1.00 remove ",
		"2 delet 0.80 remove synonym",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("queryTerms (-want +got):\n%s", diff)
	}
}

func TestKinds(t *testing.T) {
	tests := []struct {
		query string
		want  []string
	}{
		{"go to https://example.com/a.html", []string{"url"}},
		{"open google.com, then www.bing.net", []string{"url"}},
		{"clone github.com/owner/repo", []string{"url"}},
		{"rename report.txt to 'final.txt'.", []string{"file"}},
		{"what can I put under spec.jobTemplate, and metadata.labels", []string{"field"}},
		{"read status.md and spec.yaml", []string{"file"}},
		{"point origin at git@gitlab.example.com:team/api.git", []string{"remote url"}},
		{"clone https://github.com/foo/bar.git, mail bob@example.com", []string{"remote url"}},
		{"read src/main.go and open example.org", []string{"file", "url"}},
		{"calls os in 1.2, e.g. a .env", nil},
		{"run document.title, window.innerWidth and el.click() in the page; os.Exit", []string{"javascript code", "code"}},
		{"count document.querySelectorAll('a').length", []string{"javascript code"}},
		{"call os.Exit(1) and fmt.Sprintf(\"%d\", n).Len", []string{"code"}},
		{"what's 2+2, and 3*4.5?", []string{"sum"}},
		{"pages 2-3, +1, 1.2, data.jsonl, and/or", nil},
		{"mkdir build/out, then open acme/web", []string{"path"}},
		{"tag v2, then v1.4.0 and 2.0.1", []string{"tag"}},
		{"version 1.2, a v, vx.1, 2.0.", nil},
		{"mail bob@example.com", nil},
		{"tell #general and @alice-b", []string{"channel", "user"}},
		{"which keys match cache:* or *.go?", []string{"pattern"}},
		{"move it into backup/ then src/app/", []string{"directory"}},
		{"# heading, @ alone, a * b", nil},
		{"set user:1 and read session:42", []string{"key"}},
		{"save feature_flag:dark and rate-limit:7", []string{"key"}},
		{"list /var/data and ~/projects, read /etc/hosts.conf", []string{"directory", "file"}},
		{"at 10:30, see http:, a:b:c", nil},
		{"plain words only", nil},
		{"go to localhost:3000 or example.com:8080/x", []string{"url"}},
		{"open the README and the Makefile", []string{"file"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, kinds(tt.query)); diff != "" {
			t.Errorf("kinds(%q) (-want +got):\n%s", tt.query, diff)
		}
	}
}

// A description of megabytes is indexed by its head: the words past it
// do not match, and the build does not grow with it.
func TestHugeDescriptionIndexedByItsHead(t *testing.T) {
	long := "opens a zebra gate. " + strings.Repeat("filler words here ", 1<<16) + " quokka"
	ix := New([]Doc{{ID: "big", Name: "gate", Description: long}, {ID: "small", Name: "other", Description: "a quokka tool"}})
	if hits := ix.Search("zebra", 5); len(hits) != 1 || hits[0].ID != "big" {
		t.Errorf("zebra: %v", hits)
	}
	if hits := ix.Search("quokka", 5); len(hits) != 1 || hits[0].ID != "small" {
		t.Errorf("quokka, past the head: %v; want the small tool only", hits)
	}
}

// A query is read to its head too: what a caller pastes after the
// first kilobytes is not searched, so a huge query costs what its head
// does.
func TestHugeQueryReadToItsHead(t *testing.T) {
	ix := New([]Doc{{ID: "zebra", Name: "zebra", Description: "opens a zebra gate"}, {ID: "quokka", Name: "quokka", Description: "a quokka tool"}})
	q := "zebra " + strings.Repeat("filler words here ", 1<<16) + " quokka"
	if hits := ix.Search(q, 5); len(hits) != 1 || hits[0].ID != "zebra" {
		t.Errorf("zebra, then quokka past the head: %v; want zebra only", hits)
	}
}

// A hit says why it matched, in the query's order: the query's word and
// the tool's, and how they are related, so an agent can refine its query.
func TestWhy(t *testing.T) {
	ix := New([]Doc{
		{ID: "tag", Name: "git_tag", Description: "Manage tags: list, create or delete a tag."},
		{ID: "push", Name: "git_push", Description: "Push commits to a remote repository."},
	})
	tests := []struct {
		query string
		want  map[string][]Match
	}{
		{"label this commit", map[string][]Match{
			"tag":  {{Query: "label", Word: "tag", Relation: "learned"}},
			"push": {{Query: "commit", Word: "commits"}},
		}},
		{"ship it to origin", map[string][]Match{
			"push": {{Query: "ship", Word: "push", Relation: "means"}, {Query: "origin", Word: "push", Relation: "means"}},
			"tag":  {{Query: "ship", Word: "tag", Relation: "learned"}},
		}},
	}
	for _, tt := range tests {
		got := map[string][]Match{}
		for _, h := range ix.Search(tt.query, 5) {
			got[h.ID] = h.Why
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Search(%q) why (-want +got):\n%s", tt.query, diff)
		}
	}
	// A kind names the query's word that implied it.
	nav := New([]Doc{{ID: "nav", Name: "browser_navigate", Description: "Navigate to a URL"}})
	hits := nav.Search("https://example.com/a.html, please", 1)
	want := []Match{{Query: "https://example.com/a.html", Word: "url", Relation: "kind"}}
	if len(hits) != 1 || !cmp.Equal(hits[0].Why, want) {
		t.Errorf("a URL's why: %+v, want %+v", hits, want)
	}
	if s := (Match{Query: "label", Word: "tag", Relation: "synonym"}).String(); s != "tag ← label (synonym)" {
		t.Errorf("String() = %q", s)
	}
}

// Every concept is one word or two that a query can say (a word alone
// is no stop word, which tokens drops; of two, one may be: stopPairs
// finds "reports to"), and implies words a tool can have.
func TestConcepts(t *testing.T) {
	for from, to := range concepts {
		words := strings.Fields(from)
		if len(words) == 1 && !slices.Contains(tokens(from), stem(from)) ||
			len(words) == 2 && len(tokens(from)) == 0 || len(words) > 2 {
			t.Errorf("concept %q: tokens %v; a concept is one word or two, not stop words alone", from, tokens(from))
		}
		for _, w := range to {
			if len(tokens(w)) == 0 {
				t.Errorf("concept %q implies %q, which is no word", from, w)
			}
		}
	}
}

// A capitalised word no tool says is a name, and names an entity; one
// that starts the query must be no English word either, and a tool's own
// words, acronyms and files are no names.
func TestNames(t *testing.T) {
	ix := New([]Doc{{ID: "gh", Name: "create_issue", Description: "Create an issue on GitHub"}})
	tests := []struct {
		query string
		want  []named
	}{
		{"Acme is a customer now", []named{{"entity", "Acme"}}},
		{"Carol's title is CTO", []named{{"entity", "Carol"}}},
		{"Show what you know about Initech.", []named{{"entity", "Initech"}}},
		{"Open an Issue on GitHub for the PR", nil},
		{"where is the Makefile", nil},
		{"tell me about acme", nil},
		{"Did the CI pipeline go green, or is a build still red?", nil},
		{"Could Dana see it?", []named{{"entity", "Dana"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ix.namesOf(tt.query), cmp.AllowUnexported(named{})); diff != "" {
			t.Errorf("namesOf(%q) (-want +got):\n%s", tt.query, diff)
		}
	}
}

// A phrase with a stop word is a concept too: "reports to" is a
// relation, which neither word says alone.
func TestStopPairs(t *testing.T) {
	ix := New([]Doc{
		{ID: "rel", Name: "create_relations", Description: "Create relations between things"},
		{ID: "other", Name: "read_file", Description: "Read a file"},
	})
	hits := ix.Search("dana reports to alice", 2)
	if len(hits) != 1 || hits[0].ID != "rel" {
		t.Fatalf("hits %+v, want rel alone", hits)
	}
	want := Match{Query: "reports to", Word: "relations", Relation: "means"}
	if !slices.Contains(hits[0].Why, want) {
		t.Errorf("why %v, want %v among them", hits[0].Why, want)
	}
}
