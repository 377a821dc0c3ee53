package host

import (
	"context"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

// ViewFilter selects what a view shows. The zero value shows everything.
type ViewFilter struct {
	// Servers limits the view to these servers; empty means all.
	Servers []string
	// Tools filters exposed tool names by glob; deny wins.
	Tools config.ToolFilter
}

// View is a filtered window on a host's tools for a subagent or a gateway
// client (DESIGN.md F28). It shares the host's connections: each call looks the
// tool up again, so a reconnect underneath is invisible, and a view holds
// nothing that needs closing.
type View struct {
	h *Host
	f ViewFilter
}

// View returns a view of the host's tools through filter.
func (h *Host) View(filter ViewFilter) *View {
	return &View{h: h, f: filter}
}

func (v *View) shows(t Tool) bool {
	if len(v.f.Servers) > 0 && !slices.Contains(v.f.Servers, t.Server) {
		return false
	}
	return allowed(v.f.Tools, t.Name)
}

// Tools returns the view's tools; Version is the host's.
func (v *View) Tools() ToolSet {
	set := v.h.Tools()
	out := ToolSet{Version: set.Version}
	for _, t := range set.Tools {
		if v.shows(t) {
			out.Tools = append(out.Tools, t)
		}
	}
	return out
}

// CallTool calls a tool the view shows; any other name is unknown here.
func (v *View) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	for _, t := range v.h.Tools().Tools {
		if t.Name == name && v.shows(t) {
			return v.h.CallTool(ctx, name, args)
		}
	}
	err := fmt.Errorf("%w %q", ErrUnknownTool, name)
	return errorResult(err), err
}
