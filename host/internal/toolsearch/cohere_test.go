package toolsearch

import (
	"math"
	"testing"
)

// A tool whose server meets fewer of the query's words than another
// server's tools do is scaled down by ((met+1)/(most+1))^cohere; the
// server that meets most keeps its tools' scores.
func TestCohere(t *testing.T) {
	docs := []Doc{
		{ID: "shot", Server: "browser", Name: "take_screenshot", Description: "Take a screenshot of the page"},
		{ID: "pick", Server: "git", Name: "cherry_pick", Description: "Apply a fix from another branch"},
		{ID: "log", Server: "git", Name: "git_log", Description: "Show the history of a branch"},
	}
	query := "take that one tiny little fix from the hotfix branch" // three words between: no verb-object pair
	scores := func(ix *Index) map[string]float64 {
		m := map[string]float64{}
		for _, h := range ix.Search(query, 0) {
			m[h.ID] = h.Score
		}
		return m
	}
	ix := New(docs)
	with := scores(ix)
	saved := tuned
	tuned.cohere = 0
	without := scores(New(docs))
	tuned = saved
	// git meets fix, branch and "take ... fix", a cherry-pick whose verb
	// reaches its object (round7.go) (3); the browser none, as its take
	// gives way to that pair (0).
	if got, want := with["shot"]/without["shot"], math.Pow(1.0/4.0, tuned.cohere); math.Abs(got-want) > 1e-9 {
		t.Errorf("take_screenshot scaled by %v, want %v", got, want)
	}
	for _, id := range []string{"pick", "log"} {
		if with[id] != without[id] {
			t.Errorf("%s: %v with, %v without: the server that meets most keeps its scores", id, with[id], without[id])
		}
	}
	// The scratch is left clean: the same search gives the same scores.
	if again := scores(ix); again["shot"] != with["shot"] || again["pick"] != with["pick"] {
		t.Errorf("a second search scored %v, the first %v", again["shot"], with["shot"])
	}
}
