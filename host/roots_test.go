package host_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// Servers of both eras see the same roots, and after SetRoots the new
// ones, having been told they changed.
func TestSetRootsBothEras(t *testing.T) {
	h := start(t, &host.Options{Roots: []*mcp.Root{{URI: "file:///old", Name: "old"}}},
		demoServer(t, "modern", "--roots"), demoServer(t, "legacy", "--roots", "--legacy"))
	sub := h.Subscribe()
	defer sub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h.WaitSettled(ctx)
	roots := func(server, want string) {
		t.Helper()
		res, err := h.CallTool(ctx, "mcp__"+server+"__roots", map[string]any{})
		if err != nil {
			t.Fatalf("%s: %v", server, err)
		}
		if got := text(t, res); got != want {
			t.Errorf("%s sees roots %q, want %q", server, got, want)
		}
	}
	for _, s := range []string{"modern", "legacy"} {
		roots(s, "file:///old old")
	}
	h.SetRoots([]*mcp.Root{{URI: "file:///new", Name: "new"}})
	told := map[string]bool{"modern": true, "legacy": true}
	for len(told) > 0 {
		e := await(t, sub, "roots/list_changed at both servers", func(e host.Event) bool {
			return e.Type == host.EventLog && told[e.Server] && e.Message == demo.RootsChangedLine
		})
		delete(told, e.Server)
	}
	for _, s := range []string{"modern", "legacy"} {
		roots(s, "file:///new new")
	}
}

// Options.ListRoots answers servers of both eras, under the caller's
// context: here each view's roots are its own, and a call on the host
// leaves the answer to Roots.
func TestListRootsBothEras(t *testing.T) {
	h := start(t, &host.Options{
		Roots: []*mcp.Root{{URI: "file:///shared", Name: "shared"}},
		ListRoots: func(ctx context.Context, _ string) ([]*mcp.Root, error) {
			if c, ok := host.CallerOf(ctx); ok && c.View != nil {
				return []*mcp.Root{{URI: "file:///" + c.View.Name(), Name: c.View.Name()}}, nil
			}
			return nil, nil
		},
	}, demoServer(t, "modern", "--roots"), demoServer(t, "legacy", "--roots", "--legacy"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h.WaitSettled(ctx)
	v := h.ViewWith(host.ViewFilter{}, &host.ViewOptions{Name: "coder"})
	for _, server := range []string{"modern", "legacy"} {
		for _, c := range []struct {
			via  string
			call func(context.Context, string, any) (*mcp.CallToolResult, error)
			want string
		}{{"the view", v.CallTool, "file:///coder coder"}, {"the host", h.CallTool, "file:///shared shared"}} {
			res, err := c.call(ctx, "mcp__"+server+"__roots", map[string]any{})
			if err != nil {
				t.Fatalf("%s through %s: %v", server, c.via, err)
			}
			if got := text(t, res); got != c.want {
				t.Errorf("%s through %s sees roots %q, want %q", server, c.via, got, c.want)
			}
		}
	}
}
