package peers

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// goEverythingPkg is go-sdk's conformance everything-server (PEERS.md): the
// reference Go server, in the module cache at the go-sdk version go.mod
// requires, so there is nothing to install. Over stdio it speaks both
// protocol eras; over streamable HTTP, -stateless (its default) serves
// 2026-07-28 only and -stateless=false stateful 2025-11-25 sessions.
const goEverythingPkg = "github.com/modelcontextprotocol/go-sdk/conformance/everything-server"

// goEverythingPrefix starts the name of the folder each test process
// builds the server into; the process id follows, so a later process can
// remove the folders of processes that are gone.
const goEverythingPrefix = "switchboard-goeverything-"

// pollInterval is how often a starting server's port is tried: a Go
// server listens within milliseconds, so a short interval costs little and
// is what the wait mostly ends on.
const pollInterval = 10 * time.Millisecond

var goEverything struct {
	once sync.Once
	bin  string
	err  error
}

// GoEverythingBinary returns go-sdk's everything-server, built once per
// test process (`go build` from this module, into a folder of the
// process's own). It skips the test when no go command is on PATH.
func GoEverythingBinary(t testing.TB) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("peers: go-sdk's everything-server is built with the go command, which is not on PATH: %v", err)
	}
	goEverything.once.Do(func() {
		goEverything.bin, goEverything.err = buildGoEverything(goCmd)
	})
	if goEverything.err != nil {
		t.Fatalf("peers: %v", goEverything.err)
	}
	return goEverything.bin
}

func buildGoEverything(goCmd string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	removeStaleBuilds()
	dir, err := os.MkdirTemp("", goEverythingPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "everything-server")
	cmd := exec.Command(goCmd, "build", "-o", bin, goEverythingPkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("go build %s: %v\n%s", goEverythingPkg, err, out)
	}
	return bin, nil
}

// removeStaleBuilds removes the build folders of test processes that have
// ended: a process has no moment to remove its own, and each is 12 MB.
func removeStaleBuilds() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), goEverythingPrefix+"*"))
	for _, dir := range dirs {
		pidText, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(dir), goEverythingPrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		os.RemoveAll(dir)
	}
}

func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// GoEverythingStdio returns the command line that runs go-sdk's
// everything-server over stdio, where it answers both server/discover
// (2026-07-28) and initialize (2025-11-25). It ends when its stdin closes.
func GoEverythingStdio(t testing.TB) (command string, args []string) {
	t.Helper()
	return GoEverythingBinary(t), nil
}

// StartGoEverything starts go-sdk's everything-server over streamable HTTP
// on a free loopback port, stateless (2026-07-28 only) or stateful
// (2025-11-25 sessions), waits until it accepts connections on that port,
// and returns its endpoint URL, http://127.0.0.1:PORT/mcp. The server runs
// in its own process group, which t.Cleanup terminates and reaps; its
// output is logged if t failed.
func StartGoEverything(t testing.TB, stateless bool) (url string) {
	t.Helper()
	bin := GoEverythingBinary(t)
	p, err := launchGoEverything(bin, stateless)
	if err != nil {
		t.Fatalf("peers: %v", err)
	}
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("go-sdk everything-server (stateless %v) output (last %d lines):\n%s", stateless, outputTail, p.tail())
		}
	})
	return p.url
}

func launchGoEverything(bin string, stateless bool) (*process, error) {
	// As in launchEverything: the port may be taken between picking and
	// binding it, and one retry makes that harmless.
	for attempt := 1; ; attempt++ {
		port, err := FreePort()
		if err != nil {
			return nil, fmt.Errorf("pick a port: %w", err)
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		// No ready line: the server logs its address before it listens.
		p, err := start(bin, []string{"-http", addr, "-stateless=" + strconv.FormatBool(stateless)}, nil, "")
		if err != nil {
			return nil, fmt.Errorf("start go-sdk everything-server: %w", err)
		}
		err = p.awaitAccepting(port)
		if err == nil {
			p.url = "http://" + addr + "/mcp"
			return p, nil
		}
		p.stop()
		if !errors.Is(err, errPortTaken) || attempt == 2 {
			return nil, fmt.Errorf("go-sdk everything-server (attempt %d): %w\noutput:\n%s", attempt, err, p.tail())
		}
	}
}

// awaitAccepting tries to connect to port until it succeeds, the process
// exits or readyTimeout passes; a connection is the server's only sign
// that it listens. Where /proc can tell, the listener must be this
// process's, not another's that took the port.
func (p *process) awaitAccepting(port int) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.NewTimer(readyTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		if c, err := net.DialTimeout("tcp", addr, readyTimeout); err == nil {
			c.Close()
			if owns, known := listens(p.cmd.Process.Pid, port); known && !owns {
				return fmt.Errorf("pid %d does not listen on %d: %w", p.cmd.Process.Pid, port, errPortTaken)
			}
			return nil
		}
		select {
		case <-p.exited:
			// The last lines say why; they are read once the pipe drains.
			grace := time.NewTimer(stopGrace)
			select {
			case <-p.drained:
			case <-grace.C:
			}
			grace.Stop()
			p.mu.Lock()
			taken := p.portTaken
			p.mu.Unlock()
			if taken {
				return fmt.Errorf("exited (%v): %w", p.waitErr, errPortTaken)
			}
			return fmt.Errorf("exited before listening: %v", p.waitErr)
		case <-deadline.C:
			return fmt.Errorf("nothing accepts connections on %s after %v", addr, readyTimeout)
		case <-tick.C:
		}
	}
}
