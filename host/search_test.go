package host_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

func names(tools []host.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

func TestSearchTools(t *testing.T) {
	h := start(t, nil, demoServer(t, "demo"))
	tests := []struct {
		query, first string
	}{
		{"add two numbers", "mcp__demo__add"},
		{"what time is it", "mcp__demo__now"},
		{"hash some text with sha-256", "mcp__demo__sha256"},
		{"process id", "mcp__demo__pid"},
	}
	for _, tt := range tests {
		got := h.SearchTools(tt.query, 3)
		if len(got) == 0 || got[0].Name != tt.first {
			t.Errorf("SearchTools(%q) = %v, want %s first", tt.query, names(got), tt.first)
		}
		if len(got) > 3 {
			t.Errorf("SearchTools(%q, 3): %d tools", tt.query, len(got))
		}
	}
	if got := h.SearchTools("xyzzy", 5); len(got) != 0 {
		t.Errorf("no match: %v", names(got))
	}
	// The tool comes back whole, as Tools has it.
	got := h.SearchTools("add", 1)
	want, _ := toolNamed(h, "mcp__demo__add")
	if len(got) != 1 || !cmp.Equal(got[0], want) {
		t.Errorf("SearchTools returned %+v, want %+v", got, want)
	}
}

// A new version of the tool set is searched, not the index of the old one.
func TestSearchToolsFollowsChanges(t *testing.T) {
	h := start(t, nil, demoServer(t, "dyn", "--test-tools"))
	sub := h.Subscribe()
	defer sub.Close()
	if got := h.SearchTools("zanzibar", 5); len(got) != 0 {
		t.Fatalf("before: %v", names(got))
	}
	before := h.Tools().Version
	if _, err := h.CallTool(context.Background(), "mcp__dyn__add_tool", map[string]any{"name": "zanzibar"}); err != nil {
		t.Fatal(err)
	}
	await(t, sub, "tool set change", func(e host.Event) bool { return e.Type == host.EventTools && e.Version > before })
	got := h.SearchTools("zanzibar", 5)
	if len(got) != 1 || got[0].Name != "mcp__dyn__zanzibar" {
		t.Errorf("after add_tool: %v", names(got))
	}
}

func TestViewSearchTools(t *testing.T) {
	h := start(t, nil, demoServer(t, "a"), demoServer(t, "b"))
	v := h.View(host.ViewFilter{Servers: []string{"b"}, Tools: config.ToolFilter{Deny: []string{"*__add"}}})
	for _, tool := range v.SearchTools("add two numbers echo text", 0) {
		if tool.Server != "b" || tool.Tool == "add" {
			t.Errorf("view search shows %s", tool.Name)
		}
	}
	got := v.SearchTools("echo", 1)
	if len(got) != 1 || got[0].Name != "mcp__b__echo" {
		t.Errorf("view search for echo: %v", names(got))
	}
	// The host's own search still sees both servers.
	if got := h.SearchTools("echo", 0); len(got) < 2 {
		t.Errorf("host search for echo: %v", names(got))
	}
}

func TestSearchToolsConcurrent(t *testing.T) {
	h := start(t, nil, demoServer(t, "demo"))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if got := h.SearchTools("add two numbers", 1); len(got) != 1 || got[0].Name != "mcp__demo__add" {
					t.Errorf("concurrent search: %v", names(got))
					return
				}
			}
		})
	}
	wg.Wait()
}

// A hit says why it matched, in the query's words and the tool's, so an
// agent can refine its query; search_tools says the same to a model.
func TestSearchToolHitsSayWhy(t *testing.T) {
	h := start(t, nil, demoServer(t, "demo"))
	hits := h.SearchToolHits("plus 2 and 3", 3)
	if len(hits) == 0 || hits[0].Tool.Name != "mcp__demo__add" {
		t.Fatalf("SearchToolHits(plus 2 and 3): %+v, want mcp__demo__add first", hits)
	}
	want := host.SearchMatch{Query: "plus", Word: "add", Relation: "means"}
	if !slices.Contains(hits[0].Why, want) {
		t.Errorf("why %+v, want %+v among them", hits[0].Why, want)
	}
	if got := want.String(); got != "add ← plus (means)" {
		t.Errorf("String() = %q", got)
	}
	res, err := h.CallMetaTool(t.Context(), host.SearchToolName, map[string]any{"query": "plus 2 and 3", "limit": 1})
	if err != nil {
		t.Fatal(err)
	}
	found := res.StructuredContent.(host.SearchResult)
	if len(found.Tools) != 1 || !slices.Contains(found.Tools[0].Why, "add ← plus (means)") {
		t.Errorf("search_tools: %+v", found)
	}
	if text := host.ResultText(res); !strings.Contains(text, "[matched: ") || !strings.Contains(text, "add ← plus (means)") {
		t.Errorf("search_tools text %q does not say why", text)
	}
}

// A hit's JSON is the tool's object with "why" beside its fields, so a
// reader of tools reads it; it reads back whole, and a tool alone reads
// as a hit with no why.
func TestToolHitJSON(t *testing.T) {
	h := start(t, nil, demoServer(t, "demo"))
	hits := h.SearchToolHits("plus 2 and 3", 1)
	if len(hits) != 1 || len(hits[0].Why) == 0 {
		t.Fatalf("hits %+v", hits)
	}
	b, err := json.Marshal(hits[0])
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	if fields["name"] != "mcp__demo__add" || fields["tool"] != "add" || fields["why"] == nil {
		t.Errorf("a hit's JSON: %s", b)
	}
	var back host.ToolHit
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(hits[0], back); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	var tool host.Tool
	if err := json.Unmarshal(b, &tool); err != nil || !cmp.Equal(tool, hits[0].Tool) {
		t.Errorf("read as a tool: %+v, %v", tool, err)
	}
	plain, _ := json.Marshal(hits[0].Tool)
	var bare host.ToolHit
	if err := json.Unmarshal(plain, &bare); err != nil || bare.Why != nil || !cmp.Equal(bare.Tool, hits[0].Tool) {
		t.Errorf("a tool read as a hit: %+v, %v", bare, err)
	}
}
