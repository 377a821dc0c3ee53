package host_test

import (
	"context"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// BenchmarkConnectLogFlood times a connect to a server that sends 100,000
// log notifications before it answers initialize, beside one to the same
// server that sends none: the difference is what the flood costs the
// handshake.
func BenchmarkConnectLogFlood(b *testing.B) {
	for _, bc := range []struct {
		name  string
		flags []string
	}{
		{"quiet", nil},
		{"flood-100k", []string{"--log-flood", "100000"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := demoServer(b, "flood", bc.flags...)
			for b.Loop() {
				h := host.New(nil)
				if err := h.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
					b.Fatal(err)
				}
				if st := status(b, h, "flood"); st.State != host.StateConnected {
					b.Fatalf("%+v", st)
				}
				h.Close()
			}
		})
	}
}

// BenchmarkLargeReply times a 50 MB tool result through the host, from the
// demo server over stdio, beside a small one.
func BenchmarkLargeReply(b *testing.B) {
	h := host.New(nil)
	defer h.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{demoServer(b, "big", "--reply-tools")}); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		n    int
	}{{"1kB", 1000}, {"50MB", 50_000_000}} {
		n := bc.n
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				res, err := h.CallTool(context.Background(), "mcp__big__big_reply", map[string]any{"bytes": n})
				if err != nil || res.IsError {
					b.Fatal(err)
				}
			}
		})
	}
}
