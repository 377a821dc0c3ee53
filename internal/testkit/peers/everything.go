package peers

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/procgroup"
)

// readyTimeout bounds the wait for server-everything's ready line. A cold start
// takes about a second here; 30 s leaves room for a 2-core CI machine that is
// also running the race-enabled tests of every other package.
const readyTimeout = 30 * time.Second

// stopGrace is how long the server's process group gets after SIGTERM (and its
// output pipe after the leader's exit) before SIGKILL: node exits at once on
// SIGTERM, so anything slower is stuck.
const stopGrace = 2 * time.Second

// outputTail is how many lines of the server's output are kept for failure messages.
const outputTail = 50

// httpModes maps server-everything's HTTP modes to the line it prints on stderr
// once listening (followed by " <port>") and the endpoint path.
var httpModes = map[string]struct{ ready, path string }{
	"sse":            {"Server is running on port", "/sse"},
	"streamableHttp": {"MCP Streamable HTTP Server listening on port", "/mcp"},
}

// errPortTaken reports that the server could not bind its port.
var errPortTaken = errors.New("port already taken")

// StartEverything starts server-everything in mode "sse" or "streamableHttp" on
// a free loopback port, waits until it listens, and returns its endpoint URL
// (http://127.0.0.1:PORT/sse or /mcp). The server runs in its own process group,
// which t.Cleanup terminates and reaps; its output is logged if t failed.
func StartEverything(t testing.TB, mode string) (url string) {
	t.Helper()
	return startEverything(t, mode).url
}

func startEverything(t testing.TB, mode string) *process {
	t.Helper()
	if _, ok := httpModes[mode]; !ok {
		t.Fatalf("peers: server-everything mode %q: want sse or streamableHttp", mode)
	}
	p, err := launchEverything(Node(t), entry(t, "server-everything"), mode)
	if err != nil {
		t.Fatalf("peers: %v", err)
	}
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("server-everything %s output (last %d lines):\n%s", mode, outputTail, p.tail())
		}
	})
	return p
}

// Everything is a server-everything started by LaunchEverything.
type Everything struct {
	// URL is its endpoint, http://127.0.0.1:PORT/sse or /mcp.
	URL string
	p   *process
}

// LaunchEverything is StartEverything for programs that are not tests, with
// the peers folder from Installed. Stop ends it.
func LaunchEverything(dir, mode string) (*Everything, error) {
	if _, ok := httpModes[mode]; !ok {
		return nil, fmt.Errorf("peers: server-everything mode %q: want sse or streamableHttp", mode)
	}
	node, err := FindNode()
	if err != nil {
		return nil, err
	}
	script, err := Script(dir, "server-everything")
	if err != nil {
		return nil, err
	}
	p, err := launchEverything(node, script, mode)
	if err != nil {
		return nil, fmt.Errorf("peers: %w", err)
	}
	return &Everything{URL: p.url, p: p}, nil
}

// Stop terminates the server's process group and waits until it is gone. It
// may be called many times.
func (e *Everything) Stop() { e.p.stop() }

// launchEverything starts server-everything in an HTTP mode on a free port and
// waits until it listens.
func launchEverything(node, script, mode string) (*process, error) {
	m := httpModes[mode]
	// The port is free when picked but may be taken before node binds it
	// (parallel test binaries pick ports too): one retry makes that rare case
	// harmless without hiding a server that cannot start at all.
	for attempt := 1; ; attempt++ {
		port, err := FreePort()
		if err != nil {
			return nil, fmt.Errorf("pick a port: %w", err)
		}
		p, err := start(node, []string{script, mode}, []string{fmt.Sprintf("PORT=%d", port)},
			fmt.Sprintf("%s %d", m.ready, port))
		if err != nil {
			return nil, fmt.Errorf("start server-everything %s: %w", mode, err)
		}
		err = p.awaitListening(port)
		if err == nil {
			p.url = fmt.Sprintf("http://127.0.0.1:%d%s", port, m.path)
			return p, nil
		}
		p.stop()
		if !errors.Is(err, errPortTaken) || attempt == 2 {
			return nil, fmt.Errorf("server-everything %s (attempt %d): %w\noutput:\n%s", mode, attempt, err, p.tail())
		}
	}
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}

// process is a server started in its own process group, with stdout and stderr
// read line by line into a bounded tail.
type process struct {
	cmd     *exec.Cmd
	out     *os.File      // read end of the output pipe
	exited  chan struct{} // closed once cmd.Wait returned
	waitErr error         // set before exited is closed
	drained chan struct{} // closed once the output pipe reached EOF
	ready   chan struct{} // closed when the ready line was seen
	want    string        // the ready line; empty: none
	url     string

	mu        sync.Mutex
	lines     []string
	sawReady  bool
	portTaken bool
	stopOnce  sync.Once
}

func start(name string, args, env []string, readyLine string) (*process, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...) // later entries win
	cmd.Stdout, cmd.Stderr = w, w          // *os.File: no copying goroutine for Wait to await
	procgroup.Set(cmd)
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close() // only the children hold the write end now, so EOF means they are gone
	p := &process{
		cmd:     cmd,
		out:     r,
		exited:  make(chan struct{}),
		drained: make(chan struct{}),
		ready:   make(chan struct{}),
		want:    readyLine,
	}
	go p.drain()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

func (p *process) drain() {
	defer close(p.drained)
	defer p.out.Close()
	sc := bufio.NewScanner(p.out)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		p.mu.Lock()
		if len(p.lines) == outputTail {
			copy(p.lines, p.lines[1:])
			p.lines = p.lines[:outputTail-1]
		}
		p.lines = append(p.lines, line)
		if strings.Contains(line, "EADDRINUSE") || strings.Contains(line, "already in use") {
			p.portTaken = true
		}
		if !p.sawReady && p.want != "" && strings.TrimSpace(line) == p.want {
			p.sawReady = true
			close(p.ready)
		}
		p.mu.Unlock()
	}
	// A line longer than the buffer ends Scan; keep reading so the server
	// never blocks on a full pipe.
	_, _ = io.Copy(io.Discard, p.out)
}

// awaitListening waits for the ready line, then makes sure the server really
// owns the port: express 5 prints the line even when listen failed (in SSE
// mode the server then just exits 0), so the line alone proves nothing.
func (p *process) awaitListening(port int) error {
	timer := time.NewTimer(readyTimeout)
	defer timer.Stop()
	select {
	case <-p.ready:
	case <-p.exited:
	case <-timer.C:
		return fmt.Errorf("no line %q within %v", p.want, readyTimeout)
	}
	select {
	case <-p.exited:
		p.mu.Lock()
		taken := p.sawReady || p.portTaken
		p.mu.Unlock()
		if taken {
			return fmt.Errorf("exited (%v): %w", p.waitErr, errPortTaken)
		}
		return fmt.Errorf("exited before listening: %v", p.waitErr)
	default:
	}
	if owns, known := listens(p.cmd.Process.Pid, port); known && !owns {
		return fmt.Errorf("pid %d does not listen on %d: %w", p.cmd.Process.Pid, port, errPortTaken)
	}
	return nil
}

// stop terminates the process group and waits until the leader is reaped and
// every holder of the output pipe is gone. It may be called many times.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		pgid := p.cmd.Process.Pid // Setpgid: the leader's pid is the group id
		_ = procgroup.Terminate(pgid)
		grace := time.NewTimer(stopGrace)
		defer grace.Stop()
		select {
		case <-p.exited:
		case <-grace.C:
			_ = procgroup.Kill(pgid)
			<-p.exited
		}
		// The pipe stays open while a group member outlives the leader; such a
		// member keeps the group, so its id cannot have been reused yet.
		select {
		case <-p.drained:
		case <-grace.C:
			_ = procgroup.Kill(pgid)
			p.out.Close() // a holder outside the group must not keep us waiting
			<-p.drained
		}
	})
}

func (p *process) tail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}
