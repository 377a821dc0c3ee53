package host_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// slowDelay is the slow demo server's --init-delay: far above StartWait
// and a demo server's connect time, so no loaded machine puts either on
// the wrong side of it.
const slowDelay = 3 * time.Second

// Without a cache, Start waits for the slowest server unless StartWait
// bounds it (issue 23: a 3 s server held Start 3.03 s); the server goes
// on connecting, and a call to its tool waits for it.
func TestStartWait(t *testing.T) {
	for _, c := range []struct {
		name string
		opts *host.Options
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"StartWait", &host.Options{StartWait: 300 * time.Millisecond}, nil, nil},
		{"ctx", nil, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 300*time.Millisecond)
		}, context.DeadlineExceeded},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := host.New(c.opts)
			defer h.Close()
			sub := h.Subscribe()
			defer sub.Close()
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if c.ctx != nil {
				ctx, cancel = c.ctx()
			}
			defer cancel()
			err := h.Start(ctx, []config.ServerConfig{
				demoServer(t, "slow", "--init-delay", slowDelay.String()), demoServer(t, "fast")})
			if !errors.Is(err, c.want) && err != c.want {
				t.Fatalf("Start: %v, want %v", err, c.want)
			}
			if st := status(t, h, "slow"); st.State != host.StateConnecting {
				t.Fatalf("Start waited for the slow server: %+v", st)
			}
			// The fast one is not waited for by anything but Start: with a
			// StartWait it may still be on its way; it settles either way.
			awaitState(t, sub, "slow", host.StateConnected)
			res, err := h.CallTool(context.Background(), "mcp__slow__echo", map[string]any{"text": "late"})
			if err != nil || text(t, res) != "late" {
				t.Errorf("call after the slow server connected: %q, %v", text(t, res), err)
			}
		})
	}
}

// StartWait bounds only what is slow: servers that settle sooner are all
// in when Start returns.
func TestStartWaitFastServers(t *testing.T) {
	h := start(t, &host.Options{StartWait: time.Minute}, demoServer(t, "a"), demoServer(t, "b"))
	for _, name := range []string{"a", "b"} {
		if st := status(t, h, name); st.State != host.StateConnected {
			t.Errorf("%s: %+v", name, st)
		}
	}
}
