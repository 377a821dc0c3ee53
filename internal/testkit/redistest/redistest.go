// Package redistest starts a real redis-server on a free loopback port for
// a test, and stops it when the test ends. Debian's redis-server package
// provides it (`make replica-engines` installs it). Only tests import it.
package redistest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// envRequired is internal/testkit/peers' EnvRequired: set (as `make test`
// sets it) or with $CI, a missing redis-server fails the test.
const envRequired = "SWITCHBOARD_PEERS_REQUIRED"

// Server is one redis-server of a test.
type Server struct {
	// Addr is its host:port on 127.0.0.1.
	Addr string
	// URL is redis://Addr/0.
	URL string

	t    testing.TB
	prog string
	dir  string
	args []string
	cmd  *exec.Cmd
	done chan struct{}
	// logDone is closed when its log pipe is read to the end.
	logDone chan struct{}
}

// Program is the path of redis-server. Missing, it fails the test where
// it is required and skips it elsewhere, in one line.
func Program(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("redis-server")
	if err == nil {
		return p
	}
	if os.Getenv(envRequired) != "" || os.Getenv("CI") != "" {
		t.Fatalf("redistest: redis-server is not on PATH: run `make replica-engines` (%s or $CI is set: it is required)", envRequired)
	}
	t.Skip("redistest: redis-server is not on PATH: run `make replica-engines` (Debian's redis-server package)")
	return ""
}

// Start starts a redis-server for t on a free loopback port, with no
// persistence and its own folder, and returns once it answers PING. It
// is stopped, and its exit awaited, when t ends. args are more of
// redis-server's options ("--requirepass", "…").
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	prog := Program(t)
	dir := t.TempDir()
	// A port found free may be taken before redis binds it: try again
	// on another.
	var lastErr error
	for range 5 {
		s, err := start(t, prog, dir, args)
		if err == nil {
			t.Cleanup(s.Stop)
			return s
		}
		lastErr = err
	}
	t.Fatalf("redistest: %v", lastErr)
	return nil
}

func start(t testing.TB, prog, dir string, args []string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	return startOn(t, prog, dir, args, port)
}

func startOn(t testing.TB, prog, dir string, args []string, port int) (*Server, error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	// Its log on a pipe of ours: "Ready to accept connections" is the
	// event awaited, and its exit (a port taken) ends the pipe.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(prog, append([]string{
		"--bind", "127.0.0.1", "--port", strconv.Itoa(port),
		"--save", "", "--appendonly", "no", "--dir", dir,
		"--logfile", "", "--daemonize", "no"}, args...)...)
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = sysAttr()
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, err
	}
	s := &Server{Addr: addr, URL: "redis://" + addr + "/0", t: t, prog: prog, dir: dir, args: args, cmd: cmd, done: make(chan struct{}), logDone: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	var last []string
	ready := false
	sc := bufio.NewScanner(pr)
	for !ready && sc.Scan() {
		line := sc.Text()
		last = append(last, line)
		if len(last) > 5 {
			last = last[1:]
		}
		ready = strings.Contains(line, "Ready to accept connections")
	}
	// The rest of its log goes nowhere, until it exits: a server that
	// writes to a pipe no one reads would block.
	go func() {
		defer close(s.logDone)
		defer pr.Close()
		_, _ = io.Copy(io.Discard, pr)
	}()
	if !ready {
		s.Stop()
		return nil, fmt.Errorf("redis-server on %s exited before it was ready:\n%s", addr, strings.Join(last, "\n"))
	}
	if err := ping(addr); err != nil {
		s.Stop()
		return nil, fmt.Errorf("redis-server on %s: %v", addr, err)
	}
	return s, nil
}

// ping sends PING in RESP and wants +PONG (or NOAUTH).
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	// A server with a password answers, if not PONG.
	if line = strings.TrimSpace(line); line != "+PONG" && !strings.HasPrefix(line, "-NOAUTH") {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// Stop ends the server (SIGTERM, then SIGKILL after 5 s) and waits for
// its exit; then it checks that no process is left. It may be called
// more than once: a test stops Redis mid-run to see what a replica does.
func (s *Server) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	<-s.logDone
	if err := s.cmd.Process.Signal(syscall.Signal(0)); err == nil {
		s.t.Errorf("redistest: redis-server (pid %d) still runs after it was stopped", s.cmd.Process.Pid)
	}
	// Nothing listens on its port any more.
	if c, err := net.DialTimeout("tcp", s.Addr, time.Second); err == nil {
		c.Close()
		s.t.Errorf("redistest: %s still accepts connections after redis-server stopped", s.Addr)
	}
}

// Restart starts the server again on its port, after Stop: what a
// replica does when its Redis comes back. It fails the test when the port
// was taken meanwhile.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	_, port, _ := net.SplitHostPort(s.Addr)
	n, _ := strconv.Atoi(port)
	again, err := startOn(s.t, s.prog, s.dir, s.args, n)
	if err != nil {
		s.t.Fatalf("redistest: restart: %v", err)
	}
	s.cmd, s.done, s.logDone = again.cmd, again.done, again.logDone
}

// Pid is the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Exited is closed when the server has exited.
func (s *Server) Exited() <-chan struct{} { return s.done }

// freePort is a port the kernel had free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
