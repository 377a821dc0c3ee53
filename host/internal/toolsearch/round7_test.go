package toolsearch

import (
	"slices"
	"strings"
	"testing"
)

func TestPastedKind(t *testing.T) {
	for f, want := range map[string]string{
		"#412": "issue pull", "acme/api#88": "issue pull", "#general": "channel", "#": "",
		"src/router.ts:88": "file line", "invoice.go:40-60": "file line", "main.go:12:5": "file line",
		"localhost:3000": "url", "user:42": "key",
		"./services": "directory", "../api-review": "directory", "./docs/img/login.png": "file",
		"rate:user:42": "key", "feature:flags:beta": "key", "10:30:00": "", "a:b:c": "",
		"parseConfig": "code", "ErrImagePull": "code", "STRIPE_SECRET_OLD": "code",
		"1712345678.000200": "message ts", "C04ABCD": "channel", "U024BE7LH": "user", "C0": "", "U2": "", "3.14": "",
		"GitHub": "", "JavaScript": "", "iPhone": "", "macOS": "", "node_modules": "",
	} {
		if got := kind(f); got != want {
			t.Errorf("kind(%q) = %q, want %q", f, got, want)
		}
	}
}

func TestMadeNew(t *testing.T) {
	ix := New([]Doc{
		{ID: "post-page", Name: "post-page", Description: "Create a page"},
		{ID: "create-db", Name: "create-database", Description: "Create a database"},
		{ID: "get-page", Name: "retrieve-page", Description: "Retrieve a page"},
	})
	for query, want := range map[string]string{
		"start a new meeting notes page under Team Wiki": "post-page",
		"set up a new table for customer interviews":     "create-db",
		"retrieve the meeting notes page":                "get-page",
	} {
		if hits := ix.Search(query, 1); len(hits) == 0 || hits[0].ID != want {
			t.Errorf("%q: got %v, want %s first", query, hits, want)
		}
	}
}

func TestRunsCommand(t *testing.T) {
	for query, want := range map[string]string{
		"run `env` inside redis-0":                      "env",
		"check how full the disk is with df -h":         "df",
		"check free disk space by running df -h there.": "df",
		"run the tests with care":                       "",
		"mkdir -p build/out":                            "",
	} {
		if got, _ := runsCommand(strings.Fields(query)); got != want {
			t.Errorf("runsCommand(%q) = %q, want %q", query, got, want)
		}
	}
}

func TestTimeSpan(t *testing.T) {
	for query, want := range map[string]bool{
		"what has priya done in payments/ over the last two weeks": true,
		"commits of the past 3 days":                               true,
		"what landed on main after Nov 23":                         true,
		"read the last 20 lines of app.log":                        false,
		"show the last commit":                                     false,
		"after the deploy, restart it":                             false,
	} {
		if _, got := timeSpan(strings.Fields(query)); got != want {
			t.Errorf("timeSpan(%q) = %v, want %v", query, got, want)
		}
	}
}

func TestReachedObjects(t *testing.T) {
	ix := New([]Doc{{ID: "create", Name: "create_pull_request"}, {ID: "pull", Name: "git_pull"}})
	terms := ix.queryTerms("open a draft PR from fix/login into main")
	if !slices.ContainsFunc(terms, func(t term) bool { return t.word == "creat" && t.rel == "means" && t.from == "open pr" }) {
		t.Errorf("open ... PR: no create in %v", terms)
	}
	terms = ix.queryTerms("show the open bugs in our Bugs table")
	if n := len(slices.DeleteFunc(terms, func(t term) bool { return t.word != "creat" })); n > 1 {
		t.Errorf("open bugs ... Bugs: create %d times, want once", n)
	}
}

func TestPurposeWords(t *testing.T) {
	got := purposeWords("pull the onboarding doc out as md so I can paste it into the repo. Then stop")
	for _, w := range []string{"paste", "repo"} {
		if !got[stem(w)] {
			t.Errorf("%q not in the clause of purpose: %v", w, got)
		}
	}
	for _, w := range []string{"doc", "stop"} {
		if got[stem(w)] {
			t.Errorf("%q in the clause of purpose: %v", w, got)
		}
	}
	if got := purposeWords("mark it as done, and so on"); got != nil {
		t.Errorf("no clause of purpose: got %v", got)
	}
}
