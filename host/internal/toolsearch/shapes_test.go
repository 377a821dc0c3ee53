package toolsearch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestShapes(t *testing.T) {
	tests := []struct {
		query string
		want  []named
	}{
		{"run SELECT count(*) FROM users WHERE plan = 'pro'", []named{{"sql", "SELECT"}}},
		{"try select * from orders limit 5", []named{{"sql", "select"}}},
		{"INSERT INTO t VALUES (1)", []named{{"sql", "INSERT"}}},
		// Words of SQL said as words are no statement.
		{"drop the staging table from the db", nil},
		{"select the option from the dropdown", nil},
		{"DROP it, then SELECT", nil},
		{"give Dana's announcement a 👍", []named{{"reaction", "👍"}}},
		{"react with ❤️ and 🎉", []named{{"reaction", "❤️"}}},
		{"grab hotfix abc123 onto release-2.4", []named{{"commit", "abc123"}, {"cherry pick", "abc123"}}},
		{"rebase feature/login onto main", nil},
		{"what changed in 9f2c1e7", []named{{"commit", "9f2c1e7"}}},
		{"show 9f2c1e7d, then 0123456789abcdef0123456789abcdef01234567", []named{{"commit", "9f2c1e7d"}}},
		{"web needs 6 pods not 3", []named{{"replicas", "6"}}},
		{"spin up three more copies of the worker", []named{{"replicas", "three"}}},
		{"show the logs of pod api-1 from 3 hours ago", nil},
		{"show me what logo.png looks like, and Logo.JPG", []named{{"media", "logo.png"}}},
		{"open https://example.com/a.png and notes.md", nil},
		{"bump the port in /etc/nginx/nginx.conf from 8080 to 9090", []named{{"edit", "8080"}}},
		{"scale web from 3 to 6", nil},
		{"bump version in package.json to 2.4.0", []named{{"edit", "2.4.0"}}},
		{"bump the chart to 2.4.0", nil},
		{"ship #140 on octo/widgets", []named{{"merge", "#140"}}},
		{"ship it to origin", nil},
		{"copy notes.txt from the desktop to backup/", nil},
		{"check free disk space from inside postgres-0 by running df -h there.", []named{{"command", "df"}}},
		{"mkdir -p build/out", nil},
		{"create notes.md with a todo list", []named{{"write", "notes.md"}}},
		{"save this text as todo.txt", []named{{"write", "todo.txt"}}},
		{"create the resources from deploy.yaml", nil},
		{"swap the old version string for the new one in setup.py", nil},
		{"give the announcement in #general a :tada:", []named{{"reaction", "tada"}}},
		{"leave a note on the spec page: needs review, repeat after me: hi", nil},
		{"see how the site looks on a phone, 390x844", []named{{"resize", "390x844"}}},
		{"render it at 1280×720", []named{{"resize", "1280×720"}}},
		{"a 4x4 grid, the 0x1f byte, 2x faster", nil},
		{"I want 5 api pods instead of 2", []named{{"replicas", "5"}}},
		{"the 2 failing pods in staging", nil},
		{"what did Priya change in auth/session.go over the last two days?", []named{{"log history", "did"}, {"history since", "last"}}},
		{"what did the build print", nil},
		{"what does main.go do", nil},
		{"shrink report.csv down before I mail it", []named{{"compress", "report.csv"}}},
		{"shrink the viewport to 375x812", []named{{"resize", "375x812"}}},
		// Words, numbers, short ids and UUIDs are no hashes.
		{"a decade of 123456 at 5d8, page 59833787e2cf94fdf8782e53db20768a", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, shapesOf(tt.query), cmp.AllowUnexported(named{})); diff != "" {
			t.Errorf("shapesOf(%q) (-want +got):\n%s", tt.query, diff)
		}
	}
	// The statement starts at its verb; the words before it are the request.
	if got := statement([]string{"run", "SELECT", "a", "FROM", "b"}); got != 1 {
		t.Errorf("statement: %d, want 1", got)
	}
}
