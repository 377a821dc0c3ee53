package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/host"
)

// TestNoNameTakeover: servers "a" and "a__b" can both spell
// mcp__a__b__echo. Once a__b's echo has that name, "a" adding a tool
// b__echo at run time must not take it over: calls keep reaching a__b,
// and the newcomer gets a name of its own.
func TestNoNameTakeover(t *testing.T) {
	h := start(t, nil, demoServer(t, "a", "--test-tools"), demoServer(t, "a__b"))
	tool, ok := toolNamed(h, "mcp__a__b__echo")
	if !ok || tool.Server != "a__b" {
		t.Fatalf("before: mcp__a__b__echo is %+v", tool)
	}
	sub := h.Subscribe()
	defer sub.Close()
	before := h.Tools().Version
	if _, err := h.CallTool(context.Background(), "mcp__a__add_tool", map[string]any{"name": "b__echo"}); err != nil {
		t.Fatal(err)
	}
	await(t, sub, "tool set change", func(e host.Event) bool {
		if e.Type != host.EventTools || e.Version <= before {
			return false
		}
		for _, tl := range h.Tools().Tools {
			if tl.Server == "a" && tl.Tool == "b__echo" {
				return true
			}
		}
		return false
	})
	var newcomer host.Tool
	for _, tl := range h.Tools().Tools {
		switch {
		case tl.Name == "mcp__a__b__echo" && tl.Server != "a__b":
			t.Errorf("mcp__a__b__echo moved to %s/%s", tl.Server, tl.Tool)
		case tl.Server == "a" && tl.Tool == "b__echo":
			newcomer = tl
		}
	}
	if newcomer.Name == "" || newcomer.Name == "mcp__a__b__echo" || !strings.HasPrefix(newcomer.Name, "mcp__a__b__echo_") {
		t.Errorf("a's new b__echo is named %q, want a hashed name of its own", newcomer.Name)
	}
	// The old name still reaches a__b: its echo answers with the text, and
	// it is a__b's process that answered (the demo prefixes nothing, so
	// compare by asking each through its own name).
	res, err := h.CallTool(context.Background(), "mcp__a__b__echo", map[string]any{"text": "to a__b"})
	if err != nil || text(t, res) != "to a__b" {
		t.Errorf("calling mcp__a__b__echo: %v %+v", err, res)
	}
	if tl, _ := toolNamed(h, "mcp__a__b__echo"); tl.Server != "a__b" {
		t.Errorf("after the call, mcp__a__b__echo is %+v", tl)
	}
}
