package host

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

// A rebuild publishes a new version only when the set would look
// different: the same tools listed again, as new values, are no change;
// a changed schema or a tool the server no longer lists is one.
func TestRebuildPublishesChangesOnly(t *testing.T) {
	h := New(nil)
	defer h.Close()
	list := func(required ...any) []*mcp.Tool {
		return []*mcp.Tool{
			{Name: "b", InputSchema: map[string]any{"type": "object", "required": required}},
			{Name: "a", InputSchema: map[string]any{"type": "object"}},
		}
	}
	s := &server{h: h, cfg: config.ServerConfig{Name: "srv"}, phase: phaseConnected, live: list("x"),
		settled: closedChan(), supDone: closedChan(), listed: closedChan()}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.servers["srv"] = s
	if !h.rebuildToolsLocked() || h.tools.Version != 1 {
		t.Fatalf("first build: version %d", h.tools.Version)
	}
	if got := h.tools.Tools; len(got) != 2 || got[0].Name != "mcp__srv__a" || got[1].Name != "mcp__srv__b" {
		t.Fatalf("set not sorted by name: %+v", got)
	}
	if h.rebuildToolsLocked() {
		t.Error("a rebuild with nothing changed published a version")
	}
	s.live = list("x")
	if h.rebuildToolsLocked() {
		t.Error("the same tools, listed again, published a version")
	}
	s.live = list("y")
	if !h.rebuildToolsLocked() || h.tools.Version != 2 {
		t.Errorf("a changed schema: version %d, want 2", h.tools.Version)
	}
	s.live = s.live[:1]
	if !h.rebuildToolsLocked() || len(h.tools.Tools) != 1 {
		t.Errorf("a tool no longer listed: %+v", h.tools.Tools)
	}
}
