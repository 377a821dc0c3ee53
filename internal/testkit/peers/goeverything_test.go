package peers

import (
	"errors"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk's client asks for 2026-07-28 first (server/discover) and falls
// back to 2025-11-25 (initialize): each way of serving lands in its era.
func TestGoEverything(t *testing.T) {
	tests := []struct {
		name string
		tr   func(t *testing.T) (mcp.Transport, func())
		want string
	}{
		{"http stateless", func(t *testing.T) (mcp.Transport, func()) {
			return httpTransport(StartGoEverything(t, true))
		}, "2026-07-28"},
		{"http stateful", func(t *testing.T) (mcp.Transport, func()) {
			return httpTransport(StartGoEverything(t, false))
		}, "2025-11-25"},
		{"stdio", func(t *testing.T) (mcp.Transport, func()) {
			command, args := GoEverythingStdio(t)
			// CommandTransport's Close ends and reaps it.
			return &mcp.CommandTransport{Command: exec.Command(command, args...)}, func() {}
		}, "2026-07-28"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, done := tt.tr(t)
			defer done()
			c := mcp.NewClient(&mcp.Implementation{Name: "peers-test", Version: "v0"}, nil)
			cs, err := c.Connect(t.Context(), tr, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != tt.want {
				t.Errorf("protocol version %s, want %s", got, tt.want)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "test_simple_text"})
			if err != nil || res.IsError || len(res.Content) == 0 {
				t.Fatalf("test_simple_text: %v %+v", err, res)
			}
		})
	}
}

// The servers' process groups are gone once their test has ended.
func TestGoEverythingCleanup(t *testing.T) {
	for _, stateless := range []bool{true, false} {
		var pid int
		t.Run("serve", func(t *testing.T) {
			bin := GoEverythingBinary(t)
			p, err := launchGoEverything(bin, stateless)
			if err != nil {
				t.Fatal(err)
			}
			pid = p.cmd.Process.Pid
			t.Cleanup(p.stop)
		})
		if pid == 0 {
			continue
		}
		if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("stateless %v: process group %d after cleanup: kill 0 = %v, want ESRCH", stateless, pid, err)
		}
	}
}

// A port someone else listens on is reported as taken, whether the server
// fails to bind it or our connect reaches the other listener first.
func TestGoEverythingPortTaken(t *testing.T) {
	bin := GoEverythingBinary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	p, err := start(bin, []string{"-http", "127.0.0.1:" + strconv.Itoa(port)}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	if err := p.awaitAccepting(port); !errors.Is(err, errPortTaken) {
		t.Errorf("awaitAccepting = %v, want errPortTaken", err)
	}
}

func httpTransport(url string) (mcp.Transport, func()) {
	tr := &http.Transport{}
	return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tr}}, tr.CloseIdleConnections
}
