package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit/benchcall"
)

// envBenchRounds is how many rounds BenchmarkGatewayCall runs: in each,
// every contender is measured once, in an order that alternates from one
// round to the next, so a machine that gets busier favours no one.
const envBenchRounds = "SWITCHBOARD_BENCH_ROUNDS"

// benchTerminate is how long the bare session's Close waits after closing
// stdin before SIGTERM; the demo server ends on stdin's close at once.
const benchTerminate = 100 * time.Millisecond

// BenchmarkGatewayCall measures a call of the demo server's echo through
// the gateway (streamable HTTP on loopback, a go-sdk client, in either
// protocol era) beside the same call made direct: host.CallTool on the
// gateway's own host, and a bare go-sdk session over stdio to a demo
// server of its own; with 1 and 16 callers. Besides ns/op it reports the
// median call (p50-µs): a few slow calls (a GC, the scheduler) move the
// mean, the median shows the typical call.
//
//	$ SWITCHBOARD_BENCH_ROUNDS=5 go test -run '^$' -bench GatewayCall -benchtime 2000x ./gateway/
func BenchmarkGatewayCall(b *testing.B) {
	s := serve(b, gateway.HTTPOptions{}, demoServer(b, "demo"))
	args := map[string]any{"text": "hello"}
	contenders := []struct {
		name string
		call func(context.Context) error
	}{
		{"gateway-" + config.ProtocolLegacy, dialGateway(b, s.url, config.ProtocolLegacy, args)},
		{"gateway-" + config.ProtocolModern, dialGateway(b, s.url, config.ProtocolModern, args)},
		{"gateway-stdio", dialGatewayStdio(b, s.gw, args)},
		{"host", func(ctx context.Context) error {
			return resultErr(s.h.CallTool(ctx, "demo__echo", args))
		}},
		{"bare", dialBareDemo(b, args)},
		{"bare-http-" + config.ProtocolLegacy, dialBareHTTP(b, config.ProtocolLegacy, args)},
		{"bare-http-" + config.ProtocolModern, dialBareHTTP(b, config.ProtocolModern, args)},
	}
	rounds := 1
	if n, err := strconv.Atoi(os.Getenv(envBenchRounds)); err == nil && n > 0 {
		rounds = n
	}
	for round := range rounds {
		for _, callers := range []int{1, 16} {
			for i := range contenders {
				c := contenders[(i+round)%len(contenders)]
				name := c.name
				if callers > 1 {
					name += "-x" + strconv.Itoa(callers)
				}
				b.Run(name, func(b *testing.B) { benchcall.Measure(b, c.call, callers) })
			}
		}
	}
}

// dialGateway connects a go-sdk client to the gateway at url, speaking
// version, with an HTTP client that keeps a connection per caller.
func dialGateway(b testing.TB, url, version string, args map[string]any) func(context.Context) error {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	sess, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sess.Close() })
	if got := sess.InitializeResult().ProtocolVersion; got != version {
		b.Fatalf("the gateway speaks %s, want %s", got, version)
	}
	return func(ctx context.Context) error {
		return resultErr(sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: args}))
	}
}

// dialGatewayStdio connects a go-sdk client to a view of the gateway the
// way a client that launches serve does: newline-delimited JSON over a
// pair of pipes, served by ServePipe (what ServeStdio runs on stdin and
// stdout), in the legacy era as bare speaks. Beside bare it is the one
// extra stdio hop.
func dialGatewayStdio(b *testing.B, gw *gateway.Gateway, args map[string]any) func(context.Context) error {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	sess, err := c.Connect(context.Background(), pipeTransport(b, gw), &mcp.ClientSessionOptions{ProtocolVersion: host.ProtocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sess.Close() })
	return func(ctx context.Context) error {
		return resultErr(sess.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: args}))
	}
}

// dialBareDemo starts a demo server of its own and connects a bare go-sdk
// session to it over stdio, in the legacy era as the host does.
func dialBareDemo(b testing.TB, args map[string]any) func(context.Context) error {
	cfg := demoServer(b, "bare")
	cmd := execCommand(cfg)
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	sess, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: benchTerminate},
		&mcp.ClientSessionOptions{ProtocolVersion: host.ProtocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sess.Close() })
	return func(ctx context.Context) error {
		return resultErr(sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args}))
	}
}

func resultErr(res *mcp.CallToolResult, err error) error {
	if err == nil && res.IsError {
		return fmt.Errorf("echo: %s", textOf(res))
	}
	return err
}

// execCommand is the command a stdio server's config runs.
func execCommand(cfg config.ServerConfig) *exec.Cmd {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = os.Environ()
	for k, v := range cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}
