//go:build unix

package replicatest

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/procgroup"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// Backend is the backend of docs/deploy/haproxy.cfg that holds the
// replicas.
const Backend = "switchboard"

// HAProxy is a haproxy process in front of a cluster's replicas.
type HAProxy struct {
	URL    string // http://ADDR/mcp, the frontend
	Config string // the rendered config file
	socket string // the runtime API's unix socket

	cmd    *exec.Cmd
	exited chan struct{}
	log    logLines
}

// StartHAProxy starts haproxy with the config docs/deploy/NAME (a file
// of that folder: haproxy.cfg, or another variant), its addresses
// replaced by the cluster's, and waits until every replica is UP in it.
// It skips the test, in one line, where haproxy is not installed (fails
// it where the peers are required).
func (c *Cluster) StartHAProxy(t testing.TB, name string) *HAProxy {
	t.Helper()
	bin := peers.HAProxy(t)
	root, err := peers.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile(filepath.Join(root, "docs", "deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	// The socket's path must be short (a unix address holds 108 bytes)
	// and hold no comma (haproxy reads one as a list of addresses): not
	// in the test's folder, which is named after the test.
	sockDir, err := os.MkdirTemp("", "hap")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	h := &HAProxy{
		Config: filepath.Join(c.Dir, "haproxy-"+name),
		socket: filepath.Join(sockDir, "api.sock"),
	}
	// A free port can be taken between its probe and haproxy's bind: try
	// a few.
	for try := 0; ; try++ {
		addr := freePort(t)
		cfg, err := Render(string(tmpl), addr, h.socket, c.Replicas)
		if err != nil {
			t.Fatalf("docs/deploy/%s: %v", name, err)
		}
		if err := os.WriteFile(h.Config, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		h.URL = "http://" + addr + "/mcp"
		if err := h.start(t, bin, c.Mark); err == nil {
			break
		} else if try == 2 || !strings.Contains(err.Error(), "cannot bind") {
			t.Fatalf("haproxy -f %s: %v", h.Config, err)
		}
	}
	t.Cleanup(func() { h.stop(t) })
	ctx, cancel := context.WithTimeout(t.Context(), StartBound)
	defer cancel()
	for _, r := range c.Replicas {
		if err := h.AwaitStatus(ctx, r.Name, "UP"); err != nil {
			t.Fatalf("haproxy: %v\n%s", err, h.log.String())
		}
	}
	return h
}

// Render is the deploy config tmpl with its frontend bound to addr, its
// runtime API on socket, and one `server` line per replica in place of
// the template's: the only lines a deployment changes either.
func Render(tmpl, addr, socket string, replicas []*Replica) (string, error) {
	var out []string
	bound, stats, servers := false, false, false
	for _, line := range strings.Split(tmpl, "\n") {
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 2 && fields[0] == "bind":
			line, bound = indent+"bind "+addr, true
		case len(fields) >= 3 && fields[0] == "stats" && fields[1] == "socket":
			line, stats = indent+"stats socket "+socket+" mode 600 level admin", true
		case len(fields) >= 3 && fields[0] == "server":
			if servers {
				continue
			}
			servers = true
			var lines []string
			for _, r := range replicas {
				lines = append(lines, indent+"server "+r.Name+" "+r.Addr)
			}
			line = strings.Join(lines, "\n")
		}
		out = append(out, line)
	}
	if !bound || !stats || !servers {
		return "", fmt.Errorf("want a bind, a stats socket and server lines (bind %v, stats socket %v, server %v)", bound, stats, servers)
	}
	return strings.Join(out, "\n"), nil
}

// start runs haproxy in the foreground (-db) and returns once its
// runtime API answers, or haproxy's error when it exits first.
func (h *HAProxy) start(t testing.TB, bin, mark string) error {
	t.Helper()
	cmd := exec.Command(bin, "-db", "-f", h.Config)
	cmd.Env = append(os.Environ(), MarkEnv+"="+mark)
	procgroup.Set(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	run := &h.log
	go func() { // owned by the process: ends when Wait has reaped it
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			run.add("haproxy", sc.Text())
		}
		_ = cmd.Wait()
		close(exited)
	}()
	ctx, cancel := context.WithTimeout(t.Context(), StartBound)
	defer cancel()
	for {
		if _, err := h.Stat(); err == nil {
			h.cmd, h.exited = cmd, exited
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("haproxy exited: %s", run.String())
		case <-ctx.Done():
			_ = procgroup.Kill(cmd.Process.Pid)
			<-exited
			return fmt.Errorf("haproxy's runtime API did not answer within %v: %s", StartBound, run.String())
		case <-time.After(20 * time.Millisecond): // its socket appears when it listens: no event to wait on
		}
	}
}

// stop ends haproxy: SIGTERM, then SIGKILL past ExitBound.
func (h *HAProxy) stop(t testing.TB) {
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-h.exited:
	case <-time.After(ExitBound):
		t.Errorf("haproxy did not exit %v after SIGTERM; killing it", ExitBound)
		_ = procgroup.Kill(h.cmd.Process.Pid)
		<-h.exited
	}
}

// Command sends one command to haproxy's runtime API and returns its
// answer.
func (h *HAProxy) Command(cmd string) (string, error) {
	conn, err := net.DialTimeout("unix", h.socket, time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, cmd+"\n"); err != nil {
		return "", err
	}
	out, err := io.ReadAll(conn)
	return string(out), err
}

// Stat is each replica's status in the backend, by name: UP, DOWN, "UP
// 1/2" (going down), "DOWN 1/2" (coming up), MAINT, DRAIN.
func (h *HAProxy) Stat() (map[string]string, error) {
	out, err := h.Command("show stat")
	if err != nil {
		return nil, err
	}
	out = strings.TrimPrefix(out, "# ")
	recs, err := csv.NewReader(strings.NewReader(strings.TrimSpace(out))).ReadAll()
	if err != nil || len(recs) == 0 {
		return nil, fmt.Errorf("haproxy show stat: %q: %v", out, err)
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	px, sv, st := col["pxname"], col["svname"], col["status"]
	status := map[string]string{}
	for _, rec := range recs[1:] {
		if len(rec) > st && rec[px] == Backend && rec[sv] != "BACKEND" {
			status[rec[sv]] = rec[st]
		}
	}
	return status, nil
}

// AwaitStatus polls haproxy's runtime API until replica's status is want,
// or ctx ends: haproxy says a change of a server's state only there and
// in its log.
func (h *HAProxy) AwaitStatus(ctx context.Context, replica, want string) error {
	last := ""
	for {
		st, err := h.Stat()
		if err == nil && st[replica] == want {
			return nil
		}
		if err == nil {
			last = st[replica]
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("replica %s is %q in haproxy, want %q: %w", replica, last, want, ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// freePort is a loopback address no one listens on now.
func freePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
