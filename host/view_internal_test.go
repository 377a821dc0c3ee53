package host

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
)

// A filter with AnyOf shows what its own lists and at least one of
// AnyOf's show: the union of a caller's profiles, within serve's view.
func TestViewFilterAnyOf(t *testing.T) {
	f := ViewFilter{
		Tools: config.ToolFilter{Deny: []string{"*__delete*"}}, // serve's own
		AnyOf: []ViewFilter{
			{Servers: []string{"github"}},
			{Servers: []string{"linear"}, Tools: config.ToolFilter{Allow: []string{"linear__read*"}}},
		},
	}
	for _, tc := range []struct {
		kind           Kind
		server, name   string
		shows, servers bool
	}{
		{KindTool, "github", "github__create_issue", true, true},
		{KindTool, "github", "github__delete_repo", false, true}, // serve's deny holds within every profile
		{KindTool, "linear", "linear__read_issue", true, true},
		{KindTool, "linear", "linear__create_issue", false, true},
		{KindPrompt, "linear", "linear__standup", true, true}, // tool globs are for tools
		{KindTool, "slack", "slack__post", false, false},
		{KindResource, "slack", "slack://channel", false, false},
	} {
		if got := f.shows(tc.kind, tc.server, tc.name); got != tc.shows {
			t.Errorf("shows %s %s: %v, want %v", tc.server, tc.name, got, tc.shows)
		}
		if got := f.ShowsServer(tc.server); got != tc.servers {
			t.Errorf("ShowsServer %s: %v, want %v", tc.server, got, tc.servers)
		}
	}
	if narrowed := (ViewFilter{Servers: []string{"github", "slack"}, AnyOf: f.AnyOf}); narrowed.ShowsServer("slack") {
		t.Error("Servers widened past AnyOf")
	}
}
