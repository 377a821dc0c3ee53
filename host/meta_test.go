package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/host"
)

// An embedder gives its model the meta-tools' definitions and answers
// them through the host: the model searches, describes the tool it picks
// and calls it, with arguments in the forms a model's call comes in; a
// view answers over its own tools only.
func TestMetaTools(t *testing.T) {
	h := start(t, nil, demoServer(t, "demo"), demoServer(t, "other"))
	h.WaitSettled(context.Background())
	ctx := context.Background()

	var names []string
	for _, tool := range host.MetaTools() {
		names = append(names, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		if !json.Valid(schema) || !strings.Contains(string(schema), `"type":"object"`) {
			t.Errorf("%s: input schema %s", tool.Name, schema)
		}
	}
	if want := []string{host.SearchToolName, host.DescribeToolName, host.CallToolName}; !slices.Equal(names, want) {
		t.Fatalf("meta-tools %v, want %v", names, want)
	}

	res, err := h.CallMetaTool(ctx, host.SearchToolName, json.RawMessage(`{"query":"add two numbers","limit":3}`))
	if err != nil || res.IsError {
		t.Fatalf("search: %v %v", err, text(t, res))
	}
	found, ok := res.StructuredContent.(host.SearchResult)
	if !ok || len(found.Tools) == 0 || !strings.HasSuffix(found.Tools[0].Name, "__add") {
		t.Fatalf("search found %#v:\n%s", res.StructuredContent, text(t, res))
	}
	first := found.Tools[0].Name

	res, err = h.CallMetaTool(ctx, host.DescribeToolName, map[string]any{"name": first})
	if err != nil || !strings.Contains(text(t, res), `"inputSchema"`) {
		t.Fatalf("describe: %v %q", err, text(t, res))
	}

	res, err = h.CallMetaTool(ctx, host.CallToolName, map[string]any{"name": first, "arguments": map[string]any{"a": 2, "b": 3}})
	if err != nil || res.IsError || text(t, res) != "5" {
		t.Fatalf("call: %v %q", err, text(t, res))
	}

	// A view hides the other server's tools from every meta-tool.
	v := h.View(host.ViewFilter{Servers: []string{"other"}})
	res, err = v.CallMetaTool(ctx, host.SearchToolName, map[string]any{"query": "add two numbers"})
	if err != nil {
		t.Fatal(err)
	}
	for _, hit := range res.StructuredContent.(host.SearchResult).Tools {
		if hit.Server != "other" {
			t.Errorf("the view's search found %s", hit.Name)
		}
	}
	for _, name := range []string{host.DescribeToolName, host.CallToolName} {
		res, err = v.CallMetaTool(ctx, name, map[string]any{"name": "mcp__demo__add", "arguments": map[string]any{"a": 1, "b": 1}})
		if !errors.Is(err, host.ErrUnknownTool) || res == nil || !res.IsError {
			t.Errorf("%s of a tool the view hides: %v %v", name, err, res)
		}
	}
	if tool, args, err := v.MetaCall(json.RawMessage(`{"name":"mcp__other__echo","arguments":{"text":"hi"}}`)); err != nil || tool.Server != "other" || string(args) != `{"text":"hi"}` {
		t.Errorf("MetaCall: %v %v %s", tool, err, args)
	}

	// What a model gets wrong is an error result it can read.
	for _, tc := range []struct {
		name string
		args any
	}{
		{host.SearchToolName, map[string]any{}},
		{host.SearchToolName, json.RawMessage(`[1]`)},
		{host.DescribeToolName, map[string]any{"name": "mcp__nope__x"}},
		{"no_such_meta_tool", nil},
	} {
		res, err := h.CallMetaTool(ctx, tc.name, tc.args)
		if err == nil || res == nil || !res.IsError || !strings.Contains(text(t, res), "MCP error") {
			t.Errorf("%s %v: %v %v", tc.name, tc.args, err, res)
		}
	}
}

// The tools a model reads when schemas are deferred: the prompt section
// names the meta-tools, and the agent offers them with the alwaysLoad
// tools.
func TestMetaToolsBesidePromptSection(t *testing.T) {
	h := start(t, nil, demoServer(t, "big", "--tools-count", "200"))
	h.WaitSettled(context.Background())
	section := h.PromptSection(host.PromptOptions{Budget: 1000})
	for _, tool := range host.MetaTools() {
		if !strings.Contains(section, tool.Name) {
			t.Errorf("the section does not name %s:\n%s", tool.Name, section)
		}
	}
	res, err := h.CallMetaTool(context.Background(), host.SearchToolName, map[string]any{"query": "extra 150"})
	if err != nil || !strings.Contains(text(t, res), "mcp__big__extra_150") {
		t.Errorf("search for a tool the section left out: %v\n%s", err, text(t, res))
	}
}
