package host

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A title in a tool's annotations is searched as its own title is: a
// query in its words finds the tool.
func TestSearchReadsAnnotationTitles(t *testing.T) {
	set := ToolSet{Version: 1, Tools: []Tool{
		{Name: "s__a", Server: "s", Tool: "a", Description: "Does a thing.", Annotations: &mcp.ToolAnnotations{Title: "Quarterly ledger export"}},
		{Name: "s__b", Server: "s", Tool: "b", Title: "Ledger", Description: "Does another.", Annotations: &mcp.ToolAnnotations{Title: "Ledger"}},
	}}
	var c searchCache
	hits := c.find(set, "quarterly export", 5, nil)
	if len(hits) != 1 || hits[0].Tool.Name != "s__a" {
		t.Errorf("hits %+v, want s__a alone", hits)
	}
	if got := titles(set.Tools[1]); got != "Ledger\n" {
		t.Errorf("titles of a tool whose two titles are one: %q", got)
	}
}
