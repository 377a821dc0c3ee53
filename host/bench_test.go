package host_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testkit/benchcall"
	"github.com/switchboard-mcp/switchboard/internal/testkit/benchpeer"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// envBenchServer, set to "floor" or "demo" (or "floor-http", "demo-http"),
// makes this test binary a benchmark server (benchServer): the floor
// server (internal/benchpeer) or the demo server, over stdio, or over
// streamable HTTP on a loopback port it prints.
const envBenchServer = "SWITCHBOARD_BENCH_SERVER"

// envBenchRounds is how many rounds BenchmarkCallTool runs: in each, every
// contender of a server is measured once, in an order that alternates from
// one round to the next, so a machine that gets busier favours no one.
// go test's -count repeats each sub-benchmark on its own, in a block.
const envBenchRounds = "SWITCHBOARD_BENCH_ROUNDS"

// benchTerminate is how long a bare client's Close waits after closing
// stdin before SIGTERM: server-everything keeps running on its timers, so
// go-sdk's 5 s default would only slow the benchmark's teardown.
const benchTerminate = 100 * time.Millisecond

// benchServer runs the server envBenchServer names, until stdin closes
// (over HTTP) or the session ends (over stdio).
func benchServer(kind string) int {
	switch kind {
	case "floor":
		if err := benchpeer.ServeStdio(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case "floor-http", "demo-http":
		var handler http.Handler = benchpeer.Handler()
		if kind == "demo-http" {
			srv := demo.NewServer(demo.Options{})
			handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("http://%s/mcp\n", ln.Addr())
		go http.Serve(ln, handler)
		io.Copy(io.Discard, os.Stdin) // the benchmark ends us by closing stdin
		return 0
	}
	fmt.Fprintf(os.Stderr, "%s=%q: want floor, floor-http or demo-http\n", envBenchServer, kind)
	return 2
}

// benchTarget is a server the contenders call: a command line for stdio,
// or a URL.
type benchTarget struct {
	name     string
	command  string
	args     []string
	env      map[string]string
	url      string
	tool     string
	toolArgs map[string]any
}

func (t *benchTarget) cmd() *exec.Cmd {
	cmd := exec.Command(t.command, t.args...)
	cmd.Env = os.Environ()
	for k, v := range t.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

func (t *benchTarget) config() config.ServerConfig {
	cfg := config.ServerConfig{Name: t.name, Source: config.Source{Provider: "test", Path: "bench_test.go", Level: config.LevelExplicit},
		// The bare session's version: a like-for-like call path.
		ProtocolVersion: host.ProtocolVersion}
	if t.url != "" {
		cfg.Type, cfg.URL = config.TransportHTTP, t.url
	} else {
		cfg.Command, cfg.Args, cfg.Env = t.command, t.args, t.env
	}
	return cfg
}

// selfServer is a target that runs this test binary as a server.
func selfServer(b *testing.B, name, env, kind string) *benchTarget {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	return &benchTarget{name: name, command: exe, env: map[string]string{env: kind}}
}

// httpServer starts this test binary as an HTTP benchmark server and
// returns its target; the server ends with the benchmark.
func httpServer(b *testing.B, name, kind string) *benchTarget {
	t := selfServer(b, name, envBenchServer, kind)
	cmd := t.cmd()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("%s: %v", kind, err)
	}
	return &benchTarget{name: name, url: strings.TrimSpace(line)}
}

// BenchmarkCallTool measures a tool call through the host beside a bare
// go-sdk ClientSession against the same server: the floor server
// (internal/benchpeer, which answers in well under a microsecond, so a
// figure against it is the client's own), the demo server and the real
// server-everything over stdio, and the floor and demo servers over
// streamable HTTP; with 1 and 16 callers. A third contender, same, is the
// bare client with what the host's calls carry besides (a timeout and a
// progress token). Over stdio to the floor server a
// raw client (a pre-encoded line out, a line in) shows the pipe's own
// cost. Besides ns/op it reports the median call (p50-µs) and the
// process's CPU time per call (cpu-µs/op): with 16 callers the clients are
// CPU-bound.
//
//	$ SWITCHBOARD_BENCH_ROUNDS=5 go test -run '^$' -bench CallTool/floor -benchtime 3000x ./host/
func BenchmarkCallTool(b *testing.B) {
	demoArgs := map[string]any{"text": "hello"}
	targets := []struct {
		name  string
		start func(b *testing.B) *benchTarget
	}{
		{"floor", func(b *testing.B) *benchTarget {
			t := selfServer(b, "floor", envBenchServer, "floor")
			t.tool, t.toolArgs = benchpeer.ToolName, demoArgs
			return t
		}},
		{"demo", func(b *testing.B) *benchTarget {
			t := selfServer(b, "demo", demo.EnvServerMode, "1")
			t.tool, t.toolArgs = "echo", demoArgs
			return t
		}},
		{"everything", func(b *testing.B) *benchTarget {
			command, args := peers.EverythingStdio(b)
			return &benchTarget{name: "everything", command: command, args: args, tool: "echo", toolArgs: map[string]any{"message": "hello"}}
		}},
		{"floor-http", func(b *testing.B) *benchTarget {
			t := httpServer(b, "floor", "floor-http")
			t.tool, t.toolArgs = benchpeer.ToolName, demoArgs
			return t
		}},
		{"demo-http", func(b *testing.B) *benchTarget {
			t := httpServer(b, "demo", "demo-http")
			t.tool, t.toolArgs = "echo", demoArgs
			return t
		}},
	}
	rounds := 1
	if n, err := strconv.Atoi(os.Getenv(envBenchRounds)); err == nil && n > 0 {
		rounds = n
	}
	for _, tg := range targets {
		b.Run(tg.name, func(b *testing.B) {
			t := tg.start(b)
			contenders := []struct {
				name string
				call func(context.Context) error
			}{
				{"bare", dialBare(b, t, false)},
				{"host", dialHost(b, t)},
				{"same", dialBare(b, t, true)},
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
			if tg.name == "floor" {
				raw := dialRaw(b, t)
				for range rounds {
					b.Run("raw", func(b *testing.B) { benchcall.Measure(b, raw, 1) })
				}
			}
		})
	}
}

// dialBare connects a bare go-sdk client. With same, each call does what
// the host's does besides go-sdk's: a context with the server's timeout
// and a progress token, so that host/same is what the host adds to the
// same features.
func dialBare(b *testing.B, t *benchTarget, same bool) func(context.Context) error {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	var tr mcp.Transport = &mcp.CommandTransport{Command: t.cmd(), TerminateDuration: benchTerminate}
	if t.url != "" {
		tr = &mcp.StreamableClientTransport{Endpoint: t.url, HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	}
	sess, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: host.ProtocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sess.Close() })
	var seq atomic.Uint64
	return func(ctx context.Context) error {
		params := &mcp.CallToolParams{Name: t.tool, Arguments: t.toolArgs}
		if same {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, config.DefaultTimeout)
			defer cancel()
			params.SetProgressToken("bench-" + strconv.FormatUint(seq.Add(1), 10))
		}
		res, err := sess.CallTool(ctx, params)
		if err == nil && res.IsError {
			return fmt.Errorf("%s: %s", t.tool, host.ResultText(res))
		}
		return err
	}
}

func dialHost(b *testing.B, t *benchTarget) func(context.Context) error {
	h := host.New(nil)
	b.Cleanup(func() { h.Close() })
	cfg := t.config()
	if err := h.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
		b.Fatal(err)
	}
	if st := status(b, h, cfg.Name); st.State != host.StateConnected {
		b.Fatalf("%s: %+v", cfg.Name, st)
	}
	tool := "mcp__" + cfg.Name + "__" + t.tool
	return func(ctx context.Context) error {
		res, err := h.CallTool(ctx, tool, t.toolArgs)
		if err == nil && res.IsError {
			return fmt.Errorf("%s: %s", tool, host.ResultText(res))
		}
		return err
	}
}

// dialRaw is the floor of a stdio call: one pre-encoded line written, one
// line read, by a client that decodes nothing. It takes one caller.
func dialRaw(b *testing.B, t *benchTarget) func(context.Context) error {
	cmd := t.cmd()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + t.tool + `","arguments":{"text":"hello"}}}` + "\n")
	r := bufio.NewReader(stdout)
	return func(context.Context) error {
		if _, err := stdin.Write(line); err != nil {
			return err
		}
		_, err := r.ReadSlice('\n')
		return err
	}
}
