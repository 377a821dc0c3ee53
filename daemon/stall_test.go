package daemon_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/daemon"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/host"
)

// stalledClient attaches a client that initializes, then sends tools/list
// requests without end and never reads an answer. The channel it returns
// is closed once its sending failed: the daemon closed it.
func stalledClient(t *testing.T, ctx context.Context, c *daemon.Client) <-chan struct{} {
	t.Helper()
	conn, err := c.Attach(ctx, host.ViewFilter{})
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		spam(conn)
	}()
	t.Cleanup(func() {
		conn.Close()
		<-ended
	})
	return ended
}

func spam(conn net.Conn) error {
	hello := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"stalled","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n", config.ProtocolLegacy)
	if _, err := conn.Write([]byte(hello)); err != nil {
		return err
	}
	for i := 1; ; i += 64 {
		var b strings.Builder
		for j := range 64 {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", i+j)
		}
		if _, err := conn.Write([]byte(b.String())); err != nil {
			return err
		}
	}
}

// A client that sends requests and reads no answer makes the daemon hold
// at most maxPending of them: then it reads no more of that session's.
// Before, it read on while the answers queued, without bound (26 MB to
// 2.2 GB in 35 s).
func TestUnreadAnswersStopTheReader(t *testing.T) {
	waits := make(chan int, 1)
	// Writes never time out here: only the bound on requests holds.
	restore := daemon.SetStall(time.Hour, 16, func(n int) {
		select {
		case waits <- n:
		default:
		}
	})
	t.Cleanup(restore) // after the daemon ended: cleanups run last first
	r := serve(t, filepath.Join(socketDir(t), "d.sock"), "demo", &daemon.Options{DrainTimeout: time.Millisecond})
	c := dial(t, r.socket)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	stalledClient(t, ctx, c)
	select {
	case n := <-waits:
		// It counts the requests of a read (4 KiB at most; these lines
		// are over 40 bytes) before it waits.
		if n < 16 || n > 16+4096/40 {
			t.Errorf("the reader waited at %d unanswered requests, want 16 and at most one read's more", n)
		}
	case <-ctx.Done():
		t.Fatal("the daemon read on with its answers unread")
	}
	// The daemon still answers others.
	if _, err := c.Info(ctx); err != nil {
		t.Errorf("Info with a session held: %v", err)
	}
}

// One attached client that stops reading stalls no other: its write
// times out and ends its session, and another session still hears of a
// tool change. Before, go-sdk's notice to the stalled session blocked
// on its connection for ever, and the others' after it never went out.
func TestStalledAttachStallsNoOne(t *testing.T) {
	t.Cleanup(daemon.SetStall(time.Second, 128, nil))
	r := serve(t, filepath.Join(socketDir(t), "d.sock"), "demo", nil)
	c := dial(t, r.socket)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	// The stalled session first: go-sdk notifies sessions in the order
	// they came.
	stalled := stalledClient(t, ctx, c)
	changed := make(chan struct{}, 1)
	conn, err := c.Attach(ctx, host.ViewFilter{})
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "reading", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	other, err := client.Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	demo, err := demoserver.Config("demo")
	if err != nil {
		t.Fatal(err)
	}
	late, err := demoserver.Config("late")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.a.Host().Reload(ctx, []config.ServerConfig{demo, late}); err != nil {
		t.Fatal(err)
	}
	for seen := false; !seen; {
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("the reading session never heard of the new server's tools")
		}
		res, err := other.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			seen = seen || strings.HasPrefix(tool.Name, "mcp__late__")
		}
	}
	select {
	case <-stalled: // its connection was closed
	case <-ctx.Done():
		t.Fatal("the stalled session was never ended")
	}
}
