package transport

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-mcp/switchboard/config"
)

// stuckWriter is an output nobody reads: a Write blocks until let go.
type stuckWriter struct {
	entered chan struct{}
	release chan struct{}
}

func (w stuckWriter) Write(p []byte) (int, error) {
	w.entered <- struct{}{}
	<-w.release
	return len(p), nil
}

// A write queued behind one that blocks gives up as its context ends,
// and a call so given up is forgotten. Before, it waited for the lock
// for ever, whatever its context: one stalled client held every
// notification to it, and go-sdk's to the sessions after it.
func TestWriteWaitHonoursContext(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	out := stuckWriter{entered: make(chan struct{}), release: make(chan struct{})}
	calls := &calls{}
	conn := newStdioConn(newJSONLineFilter(r, config.DefaultMaxMessageSize, Hooks{}, calls), out, func() error { return nil }, calls, Hooks{})
	defer conn.Close()
	first := make(chan error, 1)
	go func() { first <- conn.Write(context.Background(), &jsonrpc.Request{Method: "notifications/a"}) }()
	<-out.entered // the first write holds the lock
	ctx := &endsOnceChecked{Context: context.Background(), done: make(chan struct{})}
	close(ctx.done)
	id, _ := jsonrpc.MakeID(float64(7))
	err = conn.Write(ctx, &jsonrpc.Request{ID: id, Method: "tools/call"})
	if !errors.Is(err, ErrNotWritten) || !errors.Is(err, context.Canceled) {
		t.Errorf("a write queued behind a stuck one, its context ended: %v", err)
	}
	if m := calls.method(id); m != "" {
		t.Errorf("the call not written is still awaited (%q)", m)
	}
	close(out.release)
	if err := <-first; err != nil {
		t.Errorf("the stuck write, let go: %v", err)
	}
}

// endsOnceChecked is a context that is not done when Write first checks
// it, and is done from then on: its write gets as far as the lock.
type endsOnceChecked struct {
	context.Context
	done    chan struct{}
	checked atomic.Bool
}

func (c *endsOnceChecked) Done() <-chan struct{} { return c.done }

func (c *endsOnceChecked) Err() error {
	if c.checked.Swap(true) {
		return context.Canceled
	}
	return nil
}
