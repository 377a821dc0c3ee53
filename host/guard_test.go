package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// An embedder's callback that panics or answers nothing is the server's
// error, reported in the server's log, never the agent's crash.
func TestHandlersAreGuarded(t *testing.T) {
	type handlers struct {
		sampling    func() (*mcp.CreateMessageResult, error)
		elicitation func() (*mcp.ElicitResult, error)
		roots       func() ([]*mcp.Root, error)
	}
	tests := []struct {
		name, tool string
		set        handlers
		want       string // in the call's result text
		logged     string // in the server's log; "" for nothing
	}{
		{"sampling nil", "sample", handlers{sampling: func() (*mcp.CreateMessageResult, error) { return nil, nil }},
			"sampling handler returned no result", "sampling handler returned no result"},
		{"sampling panic", "sample", handlers{sampling: func() (*mcp.CreateMessageResult, error) { panic("boom") }},
			"sampling handler panicked: boom", "sampling handler panicked: boom"},
		{"elicitation nil", "ask", handlers{elicitation: func() (*mcp.ElicitResult, error) { return nil, nil }},
			"elicitation handler returned no result", "elicitation handler returned no result"},
		{"elicitation panic", "ask", handlers{elicitation: func() (*mcp.ElicitResult, error) { panic("boom") }},
			"elicitation handler panicked: boom", "elicitation handler panicked: boom"},
		{"roots given", "roots", handlers{roots: func() ([]*mcp.Root, error) { return []*mcp.Root{{URI: "file:///given", Name: "given"}}, nil }},
			"file:///given given", ""},
		// A nil list is documented: the static Roots answer.
		{"roots nil", "roots", handlers{roots: func() ([]*mcp.Root, error) { return nil, nil }},
			"file:///static static", ""},
		{"roots panic", "roots", handlers{roots: func() ([]*mcp.Root, error) { panic("boom") }},
			"roots handler panicked: boom", "roots handler panicked: boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := &host.Options{Roots: []*mcp.Root{{URI: "file:///static", Name: "static"}}}
			if f := tc.set.sampling; f != nil {
				opts.Sampling = func(context.Context, string, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) { return f() }
			}
			if f := tc.set.elicitation; f != nil {
				opts.Elicitation = func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) { return f() }
			}
			if f := tc.set.roots; f != nil {
				opts.ListRoots = func(context.Context, string) ([]*mcp.Root, error) { return f() }
			}
			cfg := demoServer(t, "ask", "--sampling", "--elicitation", "--roots")
			cfg.ProtocolVersion = config.ProtocolLegacy // the server's own requests
			h := host.New(opts)
			t.Cleanup(func() { h.Close() })
			sub := h.Subscribe()
			defer sub.Close()
			if err := h.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
				t.Fatal(err)
			}
			var args any
			if tc.tool == "sample" {
				args = map[string]any{"text": "hi"}
			}
			res, err := h.CallTool(context.Background(), "mcp__ask__"+tc.tool, args)
			got := text(t, res)
			if !strings.Contains(got, tc.want) {
				t.Fatalf("result %q (error %v); want %q in it", got, err, tc.want)
			}
			if tc.logged == "" {
				return
			}
			await(t, sub, "the failure in the server's log", func(e host.Event) bool {
				return e.Type == host.EventLog && e.Server == "ask" && e.Level == host.LevelError && strings.Contains(e.Message, tc.logged)
			})
			if st := status(t, h, "ask"); st.State != host.StateConnected {
				t.Errorf("server after a failed handler: %s %q", st.State, st.Error)
			}
		})
	}
}

// A WithProgress function that panics costs the caller its progress, not
// the process.
func TestProgressCallbackIsGuarded(t *testing.T) {
	h := start(t, nil, demoServer(t, "p", "--test-tools"))
	sub := h.Subscribe()
	defer sub.Close()
	ctx := host.WithProgress(context.Background(), func(host.Progress, string) { panic("boom") })
	res, err := h.CallTool(ctx, "mcp__p__progress", map[string]any{"steps": 2})
	if err != nil || !strings.Contains(text(t, res), "sent 2") {
		t.Fatalf("call: %v %v", res, err)
	}
	await(t, sub, "the panic in the server's log", func(e host.Event) bool {
		return e.Type == host.EventLog && strings.Contains(e.Message, "progress handler panicked")
	})
}
