package cli

import (
	"bufio"
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// bridgeBound is far beyond what any step here takes: reaching it is a
// failure, not a timing.
const bridgeBound = time.Minute

// TestStandaloneBy: the flags that change every client's switchboard keep
// serve in-process; a client's own view does not.
func TestStandaloneBy(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--server", "a", "--tools", "x*", "--profile", "p", "--verbose", "--state-dir", "/s"}, ""},
		{[]string{"--config", "x.json", "--project", "/p"}, ""}, // a daemon of their own
		{[]string{"--standalone"}, "--standalone"},
		{[]string{"--standalone=false", "--no-prefix=false"}, ""}, // given, but not asked for
		{[]string{"--no-prefix"}, "--no-prefix"},
		{[]string{"--max-result", "100"}, "--max-result"},
		{[]string{"--http", "127.0.0.1:0"}, "--http"},
		{[]string{"--audit-log", "a.log"}, "--audit-log"},
	} {
		root, _ := newRoot(context.Background(), IO{}, nil)
		serve, _, err := root.Find([]string{"serve"})
		if err != nil {
			t.Fatal(err)
		}
		if err := serve.ParseFlags(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if got := standaloneBy(serve.Flags()); got != tc.want {
			t.Errorf("serve %v: standalone by %q, want %q", tc.args, got, tc.want)
		}
	}
}

// socketGateway serves an app over a unix socket, each connection a
// session of its own (what the daemon does), until close.
type socketGateway struct {
	ln     net.Listener
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
	a      *app.App
}

func startSocketGateway(t *testing.T, path string, srv config.ServerConfig) *socketGateway {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.Start(ctx, &app.Loaded{Servers: []config.ServerConfig{srv}},
		&app.Options{Host: &host.Options{ToolPrefix: host.NoToolPrefix}, Gateway: &gateway.Options{}})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		cancel()
		a.Close()
		t.Fatal(err)
	}
	g := &socketGateway{ln: ln, cancel: cancel, a: a}
	g.wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			g.mu.Lock()
			g.conns = append(g.conns, conn)
			g.mu.Unlock()
			g.wg.Go(func() {
				defer conn.Close()
				_ = a.ServePipe(ctx, host.ViewFilter{}, conn, conn)
			})
		}
	})
	t.Cleanup(g.close)
	return g
}

func (g *socketGateway) close() {
	g.cancel()
	g.ln.Close()
	g.mu.Lock()
	for _, c := range g.conns {
		c.Close()
	}
	g.mu.Unlock()
	g.wg.Wait()
	g.a.Close()
}

func dialSocket(path string) func(context.Context) (io.ReadWriteCloser, error) {
	return func(ctx context.Context) (io.ReadWriteCloser, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}
}

// TestServeBridge: serve's bridge carries a client's session to the
// socket's gateway and says on stderr, prefixed, when it loses it; the
// client leaving ends it with nil. No daemon at all is its error.
func TestServeBridge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.sock")
	g := startSocketGateway(t, path, demoServer(t, "demo"))

	bridgeIn, toBridge := io.Pipe()
	fromBridge, bridgeOut := io.Pipe()
	errR, errW := io.Pipe()
	stderr := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			stderr <- sc.Text()
		}
	}()
	o := &serveOptions{Factory: &Factory{IO: IO{In: bridgeIn, Out: bridgeOut, Err: errW}}}
	ran := make(chan error, 1)
	go func() {
		err := o.bridge(context.Background(), dialSocket(path))
		bridgeOut.Close()
		ran <- err
	}()

	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	sess, err := c.Connect(context.Background(), &mcp.IOTransport{Reader: fromBridge, Writer: toBridge},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "via the bridge"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "via the bridge" {
		t.Fatalf("echo through serve's bridge: %+v, %v", res, err)
	}

	g.close()
	select {
	case line := <-stderr:
		if !strings.HasPrefix(line, "switchboard: lost the daemon (") || !strings.HasSuffix(line, "); reconnecting") {
			t.Errorf("stderr when the daemon went: %q", line)
		}
	case <-time.After(bridgeBound):
		t.Fatal("serve's bridge said nothing when the daemon went")
	}

	sess.Close()
	toBridge.Close()
	select {
	case err := <-ran:
		if err != nil {
			t.Errorf("bridge after the client left: %v, want nil", err)
		}
	case <-time.After(bridgeBound):
		t.Fatal("serve's bridge did not end with its client's stdin")
	}
	errW.Close()

	err = o.bridge(context.Background(), dialSocket(filepath.Join(t.TempDir(), "none.sock")))
	if err == nil || !strings.HasPrefix(err.Error(), "serve: connecting to the daemon: ") {
		t.Errorf("bridge with no daemon: %v", err)
	}
}
