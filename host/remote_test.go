package host_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// remoteServer is the demo server over streamable HTTP on one loopback
// address, which can be stopped and started again there.
type remoteServer struct {
	t    *testing.T
	addr string
	srv  *http.Server
	done chan struct{}
	mu   sync.Mutex
	mcps []*mcp.Server // one per session the handler opened
}

func newRemoteServer(t *testing.T) *remoteServer {
	r := &remoteServer{t: t, addr: "127.0.0.1:0"}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *remoteServer) url() string { return "http://" + r.addr + "/mcp" }

func (r *remoteServer) start() {
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		s := demo.NewServer(demo.Options{Name: "remote"})
		r.mu.Lock()
		r.mcps = append(r.mcps, s)
		r.mu.Unlock()
		return s
	}, nil)
	r.srv, r.done = &http.Server{Handler: h}, make(chan struct{})
	go func() {
		defer close(r.done)
		_ = r.srv.Serve(ln)
	}()
}

// stop closes the listener and every connection, streams included.
func (r *remoteServer) stop() {
	if r.srv == nil {
		return
	}
	r.srv.Close()
	<-r.done
	r.srv = nil
	// The client's goodbye could not get through: end what it left.
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.mcps {
		for ss := range s.Sessions() {
			ss.Close()
		}
	}
	r.mcps = nil
}

// A remote server that goes away is not a crash loop: the host keeps
// trying, says why and when it tries next, and the server comes back by
// itself once it is reachable again.
func TestRemoteServerDownThenBack(t *testing.T) {
	remote := newRemoteServer(t)
	h := host.New(nil)
	h.SetHooks(host.Hooks{Backoff: func(int) time.Duration { return 20 * time.Millisecond }})
	defer h.Close()
	sub := h.Subscribe()
	defer sub.Close()
	cfg := config.ServerConfig{Name: "remote", Type: config.TransportHTTP, URL: remote.url(), PingInterval: 50 * time.Millisecond}
	if err := h.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	awaitState(t, sub, "remote", host.StateConnected)

	remote.stop()
	// Far more failed attempts than the crash-loop guard allows a process.
	for i := 0; i < 3*host.CrashLoopFailures; i++ {
		e := await(t, sub, "a failed reconnect", func(e host.Event) bool {
			if e.Type == host.EventState && e.Server == "remote" && e.State == host.StateFailed {
				t.Fatalf("given up on a remote server that is down: %s", e.Error)
			}
			return e.Type == host.EventState && e.Server == "remote" && e.State == host.StateConnecting && e.Error != ""
		})
		if strings.Contains(e.Error, "Delete") || strings.Contains(e.Error, "Post \"") || !strings.Contains(e.Error, "cannot reach "+remote.addr) {
			t.Errorf("reconnect error = %q; want it to say the server cannot be reached", e.Error)
		}
		if e.Retry.IsZero() {
			t.Errorf("reconnecting event without a next try: %+v", e)
		}
	}
	if st := status(t, h, "remote"); st.State != host.StateConnecting {
		t.Errorf("while down: %+v", st)
	}

	remote.start()
	awaitState(t, sub, "remote", host.StateConnected)
	if st := status(t, h, "remote"); !st.Retry.IsZero() || st.Error != "" {
		t.Errorf("back, yet still shows a retry or an error: %+v", st)
	}
	res, err := h.CallTool(context.Background(), "mcp__remote__echo", map[string]any{"text": "back"})
	if err != nil || !strings.Contains(text(t, res), "back") {
		t.Fatalf("call after the server came back: %v", err)
	}
}

// After a crash-loop give-up, a call to one of the server's tools names
// the server and why it is down, not "unknown tool".
func TestCallAfterGiveUpSaysWhy(t *testing.T) {
	h := host.New(nil)
	h.SetHooks(host.Hooks{Backoff: func(int) time.Duration { return time.Millisecond }})
	defer h.Close()
	sub := h.Subscribe()
	defer sub.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{demoServer(t, "crashy", "--exit-after", "200ms")}); err != nil {
		t.Fatal(err)
	}
	awaitState(t, sub, "crashy", host.StateFailed)
	_, err := h.CallTool(context.Background(), "mcp__crashy__echo", map[string]any{"text": "x"})
	var cerr *host.CallError
	if errors.Is(err, host.ErrUnknownTool) || !errors.As(err, &cerr) || cerr.Server != "crashy" || !strings.Contains(err.Error(), "crash loop") {
		t.Fatalf("call after give-up: %v; want the server and the crash loop named", err)
	}
	if _, err := h.CallTool(context.Background(), "mcp__crashy__nosuch", nil); !errors.Is(err, host.ErrUnknownTool) {
		t.Errorf("a tool the server never had: %v, want unknown tool", err)
	}
}

// A remote server that accepts each connection and drops it at once is
// not retried at the first backoff step for ever: the drops count, so the
// delay grows as it would for a server that cannot be reached.
func TestRemoteServerThatKeepsDroppingBacksOff(t *testing.T) {
	var handler http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		return mcp.NewServer(&mcp.Implementation{Name: "flaky", Version: "0"}, &mcp.ServerOptions{
			InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
				go req.Session.Close() // accepted, then gone
			},
		})
	}, nil)
	srv := httptest.NewServer(handler)
	defer srv.Close()
	steps := make(chan int, 100)
	h := host.New(nil)
	h.SetHooks(host.Hooks{Backoff: func(n int) time.Duration {
		select {
		case steps <- n:
		default:
		}
		return time.Millisecond
	}})
	defer h.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{{Name: "flaky", Type: config.TransportHTTP, URL: srv.URL}}); err != nil {
		t.Fatal(err)
	}
	highest := 0
	deadline := time.After(faultBound)
	for highest < 4 {
		select {
		case n := <-steps:
			highest = max(highest, n)
		case <-deadline:
			t.Fatalf("after many drops the backoff step is still %d", highest)
		}
	}
}
