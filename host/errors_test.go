package host_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// Each kind of failed call, produced for real, is answered by errors.Is
// with its own kind and no other, comes with an error result, and is a
// *CallError where the taxonomy says so.
func TestCallErrorTaxonomy(t *testing.T) {
	kinds := []error{host.ErrProtocol, host.ErrConnectionLost, host.ErrUnavailable, context.DeadlineExceeded,
		context.Canceled, host.ErrClosed, host.ErrNotStarted, host.ErrUnknownTool}
	tests := []struct {
		name      string
		want      error // nil: a tool error, IsError and no Go error
		callError bool
		call      func(t *testing.T) (*host.Host, error, bool) // the host, the error, whether the result is an error result
	}{
		{"tool error", nil, false, func(t *testing.T) (*host.Host, error, bool) {
			h := start(t, nil, demoServer(t, "d"))
			res, err := h.CallTool(context.Background(), "mcp__d__fail", map[string]any{"message": "no"})
			return h, err, res.IsError
		}},
		{"protocol error", host.ErrProtocol, true, func(t *testing.T) (*host.Host, error, bool) {
			h := start(t, nil, demoServer(t, "d", "--test-tools"))
			res, err := h.CallTool(context.Background(), "mcp__d__refuse", map[string]any{"message": "no"})
			var rpc *jsonrpc.Error
			if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("errors.As *jsonrpc.Error: %v", err)
			}
			return h, err, res.IsError
		}},
		{"connection lost", host.ErrConnectionLost, true, func(t *testing.T) (*host.Host, error, bool) {
			h := start(t, nil, demoServer(t, "d"))
			pid := status(t, h, "d").PID
			out := sleeping(t, h, context.Background(), "mcp__d__sleep", 60_000)
			syscall.Kill(pid, syscall.SIGKILL)
			o := <-out
			return h, o.err, o.isError
		}},
		{"timeout", context.DeadlineExceeded, true, func(t *testing.T) (*host.Host, error, bool) {
			cfg := demoServer(t, "d")
			cfg.Timeout = 50 * time.Millisecond
			h := start(t, nil, cfg)
			res, err := h.CallTool(context.Background(), "mcp__d__sleep", map[string]any{"ms": 60_000})
			return h, err, res.IsError
		}},
		{"cancelled", context.Canceled, true, func(t *testing.T) (*host.Host, error, bool) {
			h := start(t, nil, demoServer(t, "d"))
			ctx, cancel := context.WithCancel(context.Background())
			out := sleeping(t, h, ctx, "mcp__d__sleep", 60_000)
			cancel()
			o := <-out
			return h, o.err, o.isError
		}},
		{"closed", host.ErrClosed, true, func(t *testing.T) (*host.Host, error, bool) {
			h := start(t, nil, demoServer(t, "d"))
			out := sleeping(t, h, context.Background(), "mcp__d__sleep", 60_000)
			h.Close()
			o := <-out
			return h, o.err, o.isError
		}},
		{"unavailable", host.ErrUnavailable, true, func(t *testing.T) (*host.Host, error, bool) {
			// The server crashed and its reconnect is held: the call
			// waits its startup timeout and sends nothing.
			cfg := demoServer(t, "d")
			cfg.StartupTimeout = 500 * time.Millisecond
			h := host.New(nil)
			t.Cleanup(func() { h.Close() })
			var attempts int
			h.SetHooks(host.Hooks{BeforeAttempt: func(ctx context.Context, _ string) {
				if attempts++; attempts > 1 {
					<-ctx.Done()
				}
			}})
			sub := h.Subscribe()
			defer sub.Close()
			if err := h.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
				t.Fatal(err)
			}
			syscall.Kill(status(t, h, "d").PID, syscall.SIGKILL)
			await(t, sub, "d reconnecting", func(e host.Event) bool {
				return e.Server == "d" && e.State == host.StateConnecting && !e.Retry.IsZero()
			})
			res, err := h.CallTool(context.Background(), "mcp__d__echo", map[string]any{"text": "x"})
			return h, err, res.IsError
		}},
		{"not started", host.ErrNotStarted, false, func(t *testing.T) (*host.Host, error, bool) {
			h := host.New(nil)
			t.Cleanup(func() { h.Close() })
			res, err := h.CallTool(context.Background(), "mcp__d__echo", nil)
			return h, err, res.IsError
		}},
		{"unknown tool", host.ErrUnknownTool, false, func(t *testing.T) (*host.Host, error, bool) {
			h := start(t, nil, demoServer(t, "d"))
			res, err := h.CallTool(context.Background(), "mcp__d__nothing", nil)
			return h, err, res.IsError
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err, isError := tc.call(t)
			if !isError {
				t.Errorf("the result is not an error result")
			}
			if tc.want == nil {
				if err != nil {
					t.Errorf("a tool error came with error %v", err)
				}
				return
			}
			for _, k := range kinds {
				if got := errors.Is(err, k); got != (k == tc.want) {
					t.Errorf("errors.Is(%v, %v) = %v", err, k, got)
				}
			}
			var ce *host.CallError
			if got := errors.As(err, &ce); got != tc.callError {
				t.Errorf("errors.As(%v, *CallError) = %v; want %v", err, got, tc.callError)
			}
		})
	}
}
