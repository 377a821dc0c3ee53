package host

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/host/internal/toolsearch"
)

// The index reads a schema's parameters with their string enum values
// (an array's items' too), whatever form the schema came in: a tool's
// modes say what it does.
func TestSearchParams(t *testing.T) {
	const schema = `{"type":"object","properties":{
		"mode":{"type":"string","description":"what to do","enum":["list","create","delete"]},
		"level":{"type":"integer","enum":[1,2]},
		"kinds":{"type":"array","items":{"type":"string","enum":["pod","svc"]}},
		"name":{"type":"string"}}}`
	want := []toolsearch.Param{
		{Name: "kinds", Enum: []string{"pod", "svc"}},
		{Name: "level"},
		{Name: "mode", Description: "what to do", Enum: []string{"list", "create", "delete"}},
		{Name: "name"},
	}
	var decoded map[string]any
	if err := json.Unmarshal([]byte(schema), &decoded); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]any{"map": decoded, "raw": json.RawMessage(schema)} {
		if diff := cmp.Diff(want, params(in)); diff != "" {
			t.Errorf("params(%s) (-want +got):\n%s", name, diff)
		}
	}
}
