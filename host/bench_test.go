package host_test

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/peers"
)

// BenchmarkCallTool measures what the host adds to one tool call over a
// bare go-sdk client, against the same server over stdio: the demo server
// (this test binary) and the real server-everything. It is for profiling
// one side (go test -bench CallTool/host -cpuprofile …); the comparison a
// reader can trust is cmd/bench (make bench), which interleaves the
// contenders round by round: sub-benchmarks run one after the other, so a
// machine that gets busier halfway favours whichever ran first.
func BenchmarkCallTool(b *testing.B) {
	demoArgs := map[string]any{"text": "hello"}
	everythingArgs := map[string]any{"message": "hello"}
	b.Run("bare-sdk", func(b *testing.B) {
		exe, err := os.Executable()
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), demo.EnvServerMode+"=1")
		benchBare(b, cmd, "echo", demoArgs)
	})
	b.Run("host", func(b *testing.B) {
		benchHost(b, demoServer(b, "demo"), "mcp__demo__echo", demoArgs)
	})
	b.Run("bare-sdk-everything", func(b *testing.B) {
		command, args := peers.EverythingStdio(b)
		benchBare(b, exec.Command(command, args...), "echo", everythingArgs)
	})
	b.Run("host-everything", func(b *testing.B) {
		command, args := peers.EverythingStdio(b)
		cfg := config.ServerConfig{Name: "everything", Command: command, Args: args}
		benchHost(b, cfg, "mcp__everything__echo", everythingArgs)
	})
}

// bareTerminate is how long the bare client's Close waits after closing
// stdin before SIGTERM: server-everything keeps running on its timers, so
// go-sdk's 5 s default would only slow the benchmark's teardown.
const bareTerminate = 100 * time.Millisecond

func benchBare(b *testing.B, cmd *exec.Cmd, tool string, args any) {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: bareTerminate},
		&mcp.ClientSessionOptions{ProtocolVersion: host.ProtocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sess.Close() })
	call := func() error {
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err == nil && res.IsError {
			b.Fatalf("%s: %s", tool, host.ResultText(res))
		}
		return err
	}
	measure(b, call)
}

func benchHost(b *testing.B, cfg config.ServerConfig, tool string, args any) {
	ctx := context.Background()
	h := host.New(nil)
	b.Cleanup(func() { h.Close() })
	if err := h.Start(ctx, []config.ServerConfig{cfg}); err != nil {
		b.Fatal(err)
	}
	if st := status(b, h, cfg.Name); st.State != host.StateConnected {
		b.Fatalf("%s: %+v", cfg.Name, st)
	}
	call := func() error {
		res, err := h.CallTool(ctx, tool, args)
		if err == nil && res.IsError {
			b.Fatalf("%s: %s", tool, host.ResultText(res))
		}
		return err
	}
	measure(b, call)
}

// measure times call in the benchmark loop and reports the median call
// besides ns/op: a few slow calls (a GC, the scheduler) move the mean, the
// median shows the typical call.
func measure(b *testing.B, call func() error) {
	// One call first, outside the timing: the first call of a session pays
	// for lazily built things (schema caches, buffers) on both sides.
	if err := call(); err != nil {
		b.Fatal(err)
	}
	var durs []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
	}
	if len(durs) == 0 {
		return
	}
	slices.Sort(durs)
	p50 := durs[len(durs)/2]
	b.ReportMetric(float64(p50.Nanoseconds())/1e3, "p50-µs")
}
