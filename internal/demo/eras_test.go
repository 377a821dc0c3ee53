package demo_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// discoverRequest is the server/discover go-sdk v1.8.0's client opens with.
const discoverRequest = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` +
	`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"test","version":"v0"},` +
	`"io.modelcontextprotocol/clientCapabilities":{}}}}`

// probeTimeout bounds the client's server/discover in TestEras, as a host
// that probes does, where the server never answers it (--ignore-discover):
// it is what that case costs. The other cases wait for the answer, however
// slow a loaded machine makes the server's start.
const probeTimeout = 300 * time.Millisecond

// probeOutcome records how the client's server/discover ended.
type probeOutcome struct {
	timeout time.Duration // 0: unbounded
	mu      sync.Mutex
	errs    []error
}

// bound is a sending middleware that bounds server/discover by the
// timeout and records its error: a failed probe makes go-sdk fall back to
// initialize on the same connection.
func (p *probeOutcome) bound(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "server/discover" {
			return next(ctx, method, req)
		}
		if p.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, p.timeout)
			defer cancel()
		}
		res, err := next(ctx, method, req)
		p.mu.Lock()
		p.errs = append(p.errs, err)
		p.mu.Unlock()
		return res, err
	}
}

// TestEras connects go-sdk's client, which probes with server/discover,
// to the demo in each mode over stdio, and checks the era it lands in,
// how the probe ended, that a call works and that the probe was reported.
func TestEras(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		want  string // the negotiated protocol version
		probe func(error) bool
		bound time.Duration // of server/discover
	}{
		{"default", nil, "2026-07-28", func(err error) bool { return err == nil }, 0},
		{"legacy", []string{"--legacy"}, "2025-11-25", func(err error) bool {
			var werr *jsonrpc.Error
			return errors.As(err, &werr) && werr.Code == jsonrpc.CodeMethodNotFound
		}, 0},
		{"ignore-discover", []string{"--ignore-discover"}, "2025-11-25", func(err error) bool {
			return errors.Is(err, context.DeadlineExceeded)
		}, probeTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := demoCommand(t, tt.flags...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			probe := probeOutcome{timeout: tt.bound}
			c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			c.AddSendingMiddleware(probe.bound)
			cs, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := cs.InitializeResult().ProtocolVersion; got != tt.want {
				t.Errorf("protocol version = %s, want %s", got, tt.want)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "era"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(t, res); got != "era" {
				t.Errorf("echo = %q", got)
			}
			if err := cs.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			if len(probe.errs) != 1 || !tt.probe(probe.errs[0]) {
				t.Errorf("server/discover ended with %v", probe.errs)
			}
			// Close waited for the process, and so for its stderr: the
			// probe, then initialize where it fell back.
			want := demo.DiscoverLine + "\n"
			if tt.want == "2025-11-25" {
				want += demo.InitializeLine + "\n"
			}
			if got := handshakeLines(stderr.String()); got != want {
				t.Errorf("handshake lines on stderr %q, want %q; stderr:\n%s", got, want, stderr.String())
			}
		})
	}
}

// The answers to server/discover on the wire: a result by default, -32601
// with --legacy.
func TestDiscoverWire(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		var flags []string
		if legacy {
			flags = []string{"--legacy"}
		}
		p := startDemo(t, flags...)
		p.send(t, discoverRequest)
		resp, before := p.response(t, 1)
		if len(before) > 0 {
			t.Errorf("legacy %v: lines before the response: %q", legacy, before)
		}
		errObj, _ := resp["error"].(map[string]any)
		result, _ := resp["result"].(map[string]any)
		switch {
		case legacy && (errObj == nil || errObj["code"] != float64(jsonrpc.CodeMethodNotFound)):
			t.Errorf("--legacy: %v, want error -32601", resp)
		case !legacy && (result == nil || !strings.Contains(strings.Join(anyStrings(result["supportedVersions"]), " "), "2026-07-28")):
			t.Errorf("default: %v, want a result supporting 2026-07-28", resp)
		}
		p.awaitStderr(t, demo.DiscoverLine)
		if err := p.wait(t); err != nil {
			t.Errorf("legacy %v: exit: %v", legacy, err)
		}
	}
}

// handshakeLines keeps the DiscoverLine and InitializeLine lines of stderr.
func handshakeLines(stderr string) string {
	var b strings.Builder
	for line := range strings.Lines(stderr) {
		if line == demo.DiscoverLine+"\n" || line == demo.InitializeLine+"\n" {
			b.WriteString(line)
		}
	}
	return b.String()
}

func anyStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// --ignore-discover writes nothing for a server/discover, not after the
// client cancels it, not when the session ends; everything else is
// answered meanwhile.
func TestIgnoreDiscoverWire(t *testing.T) {
	p := startDemo(t, "--ignore-discover")
	p.send(t, discoverRequest)
	p.awaitStderr(t, demo.DiscoverLine) // read, and dropped
	// What go-sdk's client sends when its bounded probe gives up.
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"context deadline exceeded"}}`)
	p.send(t, strings.Replace(initializeRequest, `"id":1`, `"id":2`, 1))
	if resp, before := p.response(t, 2); resp["result"] == nil || len(before) > 0 {
		t.Fatalf("initialize: %v, lines before it %q", resp, before)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if resp, before := p.response(t, 3); resp["result"] == nil || len(before) > 0 {
		t.Fatalf("ping: %v, lines before it %q", resp, before)
	}
	p.stdin.Close()
	rest, err := io.ReadAll(p.stdout)
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) > 0 {
		t.Errorf("after stdin closed the server wrote %q, want nothing", rest)
	}
	for range p.stderr {
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
}
