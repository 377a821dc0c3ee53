package host_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// sleeping starts a call of the demo's sleep tool for ms and returns once
// the server is sleeping (its first progress report), with the channel
// the call's outcome arrives on.
func sleeping(t *testing.T, h *host.Host, ctx context.Context, tool string, ms int) <-chan callOutcome {
	t.Helper()
	reached := make(chan struct{}, 1)
	ctx = host.WithProgress(ctx, func(host.Progress, string) {
		select {
		case reached <- struct{}{}:
		default:
		}
	})
	out := make(chan callOutcome, 1)
	go func() {
		res, err := h.CallTool(ctx, tool, map[string]any{"ms": ms})
		out <- callOutcome{res: host.ResultText(res), isError: res != nil && res.IsError, nilResult: res == nil, err: err}
	}()
	select {
	case <-reached:
	case o := <-out:
		t.Fatalf("the call ended before it slept: %+v", o)
	}
	return out
}

type callOutcome struct {
	res                string
	isError, nilResult bool
	err                error
}

// Close cancels a call in flight instead of waiting for its answer; the
// caller learns the host closed.
func TestCloseCancelsCallsInFlight(t *testing.T) {
	h := start(t, nil, demoServer(t, "slow"))
	out := sleeping(t, h, context.Background(), "mcp__slow__sleep", 60_000)
	began := time.Now()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took > host.CloseBound {
		t.Errorf("Close took %s; bound %s", took, host.CloseBound)
	}
	o := <-out
	var ce *host.CallError
	if !errors.Is(o.err, host.ErrClosed) || !errors.As(o.err, &ce) || ce.Server != "slow" {
		t.Errorf("the call's error: %v; want a CallError of server slow that is ErrClosed", o.err)
	}
	if o.nilResult || !o.isError || !strings.Contains(o.res, "host is closed") {
		t.Errorf("the call's result: %+v; want an error result that says the host closed", o)
	}
}

// A cancelled call returns a result an agent can render, as every failed
// call does, and ResultText takes nil.
func TestCancelledCallHasAResult(t *testing.T) {
	h := start(t, nil, demoServer(t, "slow"))
	ctx, cancel := context.WithCancel(context.Background())
	out := sleeping(t, h, ctx, "mcp__slow__sleep", 60_000)
	cancel()
	o := <-out
	if !errors.Is(o.err, context.Canceled) {
		t.Errorf("error %v; want context.Canceled", o.err)
	}
	if o.nilResult || !o.isError || !strings.Contains(o.res, "context canceled") {
		t.Errorf("result %+v; want an error result saying the call was cancelled", o)
	}
	if got := host.ResultText(nil); got != "" {
		t.Errorf("ResultText(nil) = %q", got)
	}
	if got := host.RenderResult(nil, host.ResultOptions{MaxText: 10}); got != "" {
		t.Errorf("RenderResult(nil) = %q", got)
	}
}

// A Start whose context is already done starts nothing.
func TestStartWithDoneContextStartsNothing(t *testing.T) {
	h := host.New(nil)
	defer h.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Start(ctx, []config.ServerConfig{demoServer(t, "a")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Start: %v; want context.Canceled", err)
	}
	if st := h.Status(); len(st) != 0 {
		t.Errorf("servers after a cancelled Start: %+v", st)
	}
	// Nothing was started, so the host still is not.
	if _, err := h.CallTool(context.Background(), "mcp__a__echo", nil); !errors.Is(err, host.ErrNotStarted) {
		t.Errorf("call: %v; want ErrNotStarted", err)
	}
}

// A config without a name is refused, and the entry named; nothing starts.
func TestStartRefusesAnEmptyName(t *testing.T) {
	h := host.New(nil)
	defer h.Close()
	err := h.Start(context.Background(), []config.ServerConfig{demoServer(t, "a"), demoServer(t, "")})
	if !errors.Is(err, host.ErrNoName) || !strings.Contains(err.Error(), "config 1 (host_test.go)") {
		t.Fatalf("Start: %v; want ErrNoName naming config 1", err)
	}
	if st := h.Status(); len(st) != 0 {
		t.Errorf("servers after a refused Start: %+v", st)
	}
	if _, err := h.Reload(context.Background(), []config.ServerConfig{demoServer(t, "")}); !errors.Is(err, host.ErrNoName) {
		t.Errorf("Reload: %v; want ErrNoName", err)
	}
}

// A call made after a server crashed but before the host saw it go (its
// connection closed, its state still connected) was never written: it
// waits for the reconnect, as a call made a moment later does, and
// succeeds there.
func TestCallRightAfterACrashWaitsForTheReconnect(t *testing.T) {
	noticed, release := make(chan struct{}), make(chan struct{})
	waiting := make(chan struct{}, 1)
	var first sync.Once
	h := host.New(nil)
	t.Cleanup(func() { h.Close() })
	h.SetHooks(host.Hooks{
		// Hold the server in connected, its connection gone, once.
		DropNoticed: func(ctx context.Context, server string) {
			held := false
			first.Do(func() { held = true })
			if !held {
				return
			}
			close(noticed)
			select {
			case <-release:
			case <-ctx.Done():
			}
		},
		CallWaits: func(string) {
			select {
			case waiting <- struct{}{}:
			default:
			}
		},
		Backoff: func(int) time.Duration { return 0 },
	})
	if err := h.Start(context.Background(), []config.ServerConfig{demoServer(t, "crash")}); err != nil {
		t.Fatal(err)
	}
	pid := status(t, h, "crash").PID
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-noticed
	if st := status(t, h, "crash"); st.State != host.StateConnected {
		t.Fatalf("state while held: %s", st.State)
	}
	out := make(chan callOutcome, 1)
	go func() {
		res, err := h.CallTool(context.Background(), "mcp__crash__echo", map[string]any{"text": "after the crash"})
		out <- callOutcome{res: host.ResultText(res), err: err}
	}()
	select {
	case <-waiting:
	case o := <-out:
		t.Fatalf("the call did not wait for the reconnect: %q %v", o.res, o.err)
	}
	close(release)
	if o := <-out; o.err != nil || o.res != "after the crash" {
		t.Fatalf("call: %q %v; want the echo from the new connection", o.res, o.err)
	}
	if st := status(t, h, "crash"); st.PID == pid {
		t.Errorf("the call was answered by the crashed process %d", pid)
	}
}

// A view answers a call before Start and after Close as the host does.
func TestViewCallBeforeStartAndAfterClose(t *testing.T) {
	h := host.New(nil)
	v := h.View(host.ViewFilter{})
	if _, err := v.CallTool(context.Background(), "mcp__a__echo", nil); !errors.Is(err, host.ErrNotStarted) {
		t.Errorf("before Start: %v; want ErrNotStarted", err)
	}
	h.Close()
	res, err := v.CallTool(context.Background(), "mcp__a__echo", nil)
	if !errors.Is(err, host.ErrClosed) || res == nil || !res.IsError {
		t.Errorf("after Close: %v %v; want ErrClosed with an error result", res, err)
	}
	if _, err := h.CallTool(context.Background(), "mcp__a__echo", nil); !errors.Is(err, host.ErrClosed) {
		t.Errorf("host after Close: %v; want ErrClosed", err)
	}
}
