package bridge_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/host"
)

// pipeSession is a go-sdk client over pipes to serve, which is handed the
// other ends: a bridge, or the gateway itself. close ends both.
func pipeSession(b *testing.B, serve func(in io.ReadCloser, out io.WriteCloser) error) (*mcp.ClientSession, func()) {
	b.Helper()
	serverIn, toServer := io.Pipe()
	fromServer, serverOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := serve(serverIn, serverOut)
		serverOut.Close()
		done <- err
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	sess, err := c.Connect(context.Background(), &mcp.IOTransport{Reader: fromServer, Writer: toServer},
		&mcp.ClientSessionOptions{ProtocolVersion: legacy})
	if err != nil {
		b.Fatal(err)
	}
	return sess, func() {
		sess.Close()
		toServer.Close()
		if err := <-done; err != nil {
			b.Errorf("serving: %v", err)
		}
	}
}

func viaBridge(path string) func(io.ReadCloser, io.WriteCloser) error {
	return func(in io.ReadCloser, out io.WriteCloser) error {
		return bridge.Run(context.Background(), in, out, bridge.Options{Dial: dialUnix(path)})
	}
}

// BenchmarkFirstList is a client's first tools/list through a bridge
// started for it, a warm daemon behind (what a client app launching
// serve waits for, less the process's start): initialize, initialized and
// tools/list, and the session closed. "process" launches a bridge program
// (testdata/bridgeprog), as a client app launches serve, and includes it.
func BenchmarkFirstList(b *testing.B) {
	path := filepath.Join(b.TempDir(), "d.sock")
	startDaemon(b, path, "demo")
	b.Run("in-process", func(b *testing.B) {
		for b.Loop() {
			sess, end := pipeSession(b, viaBridge(path))
			if _, err := sess.ListTools(context.Background(), nil); err != nil {
				b.Fatal(err)
			}
			end()
		}
	})
	b.Run("process", func(b *testing.B) {
		prog := buildBridgeProg(b)
		for b.Loop() {
			cmd := exec.Command(prog, path)
			c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			sess, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd},
				&mcp.ClientSessionOptions{ProtocolVersion: legacy})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := sess.ListTools(context.Background(), nil); err != nil {
				b.Fatal(err)
			}
			sess.Close()
		}
	})
}

// BenchmarkCall is a call of the demo's echo through a bridge to the
// daemon's socket beside the same call on a session of the gateway's
// own, over a pipe (App.ServePipe, what the daemon serves each stream
// with): what the bridge's hop costs.
func BenchmarkCall(b *testing.B) {
	path := filepath.Join(b.TempDir(), "d.sock")
	d := startDaemon(b, path, "demo")
	direct := func(in io.ReadCloser, out io.WriteCloser) error {
		return d.a.ServePipe(context.Background(), host.ViewFilter{}, in, out)
	}
	params := &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "hello"}}
	for _, c := range []struct {
		name  string
		serve func(io.ReadCloser, io.WriteCloser) error
	}{{"bridge", viaBridge(path)}, {"direct", direct}} {
		b.Run(c.name, func(b *testing.B) {
			sess, end := pipeSession(b, c.serve)
			defer end()
			for b.Loop() {
				if _, err := sess.CallTool(context.Background(), params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkProcessRSS is calls through a bridge process, the demo's
// 256 KiB big_reply every tenth, and reports the process's peak resident
// memory: what each client app's serve costs the machine. The process is
// testdata/bridgeprog, the bridge and nothing else: the switchboard
// binary adds what its size and its packages cost at start.
func BenchmarkProcessRSS(b *testing.B) {
	prog := buildBridgeProg(b)
	path := filepath.Join(b.TempDir(), "d.sock")
	startDaemon(b, path, "demo")
	cmd := exec.Command(prog, path)
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	sess, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd},
		&mcp.ClientSessionOptions{ProtocolVersion: legacy})
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	echo := &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "hello"}}
	big := &mcp.CallToolParams{Name: "demo__big_reply", Arguments: map[string]any{"bytes": 256 << 10}}
	i := 0
	for b.Loop() {
		params := echo
		if i++; i%10 == 0 {
			params = big
		}
		if _, err := sess.CallTool(context.Background(), params); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(peakRSS(b, cmd.Process.Pid), "MiB-peak-RSS")
}

// peakRSS is the process's peak resident memory in MiB (VmHWM).
func peakRSS(b *testing.B, pid int) float64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc here: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")))
			if err != nil {
				b.Fatalf("VmHWM: %q", line)
			}
			return float64(n) / 1024
		}
	}
	b.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// buildBridgeProg builds testdata/bridgeprog: a program that is a bridge
// to the socket its argument names, and nothing else.
func buildBridgeProg(b *testing.B) string {
	b.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		b.Skipf("bridgeprog is built with the go command, which is not on PATH: %v", err)
	}
	prog := filepath.Join(b.TempDir(), "bridgeprog")
	if out, err := exec.Command(goCmd, "build", "-o", prog, "./testdata/bridgeprog").CombinedOutput(); err != nil {
		b.Fatalf("go build ./testdata/bridgeprog: %v\n%s", err, out)
	}
	return prog
}
