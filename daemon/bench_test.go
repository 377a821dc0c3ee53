package daemon_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/host"
)

// BenchmarkCall is a call of the demo's echo through the daemon's control
// API, against the same call on the host in process: what attaching costs
// a one-shot command or a subagent per call.
func BenchmarkCall(b *testing.B) {
	r := serve(b, filepath.Join(socketDir(b), "d.sock"), "demo", nil)
	ctx := context.Background()
	args := map[string]any{"text": "hi"}
	b.Run("daemon", func(b *testing.B) {
		c := dial(b, r.socket)
		for b.Loop() {
			if _, err := c.CallTool(ctx, "mcp__demo__echo", args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("in-process", func(b *testing.B) {
		h := r.a.Host()
		for b.Loop() {
			if _, err := h.CallTool(ctx, "mcp__demo__echo", args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("daemon-tools", func(b *testing.B) {
		c := dial(b, r.socket)
		for b.Loop() {
			if _, err := c.Tools(ctx, host.ViewFilter{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
