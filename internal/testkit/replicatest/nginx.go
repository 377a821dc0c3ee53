//go:build unix

package replicatest

import (
	"bufio"
	"context"
	"fmt"
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

// Nginx is an nginx process in front of a cluster's replicas.
type Nginx struct {
	URL string // http://ADDR/mcp

	cmd    *exec.Cmd
	exited chan struct{}
	log    logLines
}

// StartNginx starts nginx with docs/deploy/nginx.conf (the http block's
// contents), its addresses replaced by the cluster's, in a main config of
// the test's own (foreground, logs on stderr, temporary files in the
// test's folder), and waits until it accepts connections. It skips the
// test, in one line, where nginx is not installed (fails it where the
// peers are required).
func (c *Cluster) StartNginx(t testing.TB) *Nginx {
	t.Helper()
	bin := peers.Nginx(t)
	root, err := peers.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile(filepath.Join(root, "docs", "deploy", "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(c.Dir, "nginx")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	http, err := RenderNginx(string(tmpl), addr, c.Replicas)
	if err != nil {
		t.Fatalf("docs/deploy/nginx.conf: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "switchboard.conf"), []byte(http), 0o644); err != nil {
		t.Fatal(err)
	}
	main := fmt.Sprintf(`daemon off;
worker_processes 1;
error_log stderr warn;
pid %[1]s/nginx.pid;
events {}
http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    include %[1]s/switchboard.conf;
}
`, dir)
	conf := filepath.Join(dir, "main.conf")
	if err := os.WriteFile(conf, []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	n := &Nginx{URL: "http://" + addr + "/mcp", exited: make(chan struct{})}
	cmd := exec.Command(bin, "-p", dir, "-c", conf)
	cmd.Env = append(os.Environ(), MarkEnv+"="+c.Mark)
	procgroup.Set(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n.cmd = cmd
	go func() { // owned by the process: ends when Wait has reaped it
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			n.log.add("nginx", sc.Text())
		}
		_ = cmd.Wait()
		close(n.exited)
	}()
	t.Cleanup(func() { n.stop(t) })
	ctx, cancel := context.WithTimeout(t.Context(), StartBound)
	defer cancel()
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return n
		}
		select {
		case <-n.exited:
			t.Fatalf("nginx exited: %s", n.log.String())
		case <-ctx.Done():
			t.Fatalf("nginx did not listen on %s within %v: %s", addr, StartBound, n.log.String())
		case <-time.After(20 * time.Millisecond): // it listens when ready: no event to wait on
		}
	}
}

// RenderNginx is the deploy config tmpl with its server listening on
// addr and one upstream `server` line per replica in place of the
// template's.
func RenderNginx(tmpl, addr string, replicas []*Replica) (string, error) {
	var out []string
	listen, servers := false, false
	for _, line := range strings.Split(tmpl, "\n") {
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 2 && fields[0] == "listen":
			line, listen = indent+"listen "+addr+";", true
		case len(fields) >= 2 && fields[0] == "server" && fields[1] != "{":
			if servers {
				continue
			}
			servers = true
			opts := strings.Join(fields[2:], " ")
			var lines []string
			for _, r := range replicas {
				lines = append(lines, indent+"server "+r.Addr+" "+opts)
			}
			line = strings.Join(lines, "\n")
		}
		out = append(out, line)
	}
	if !listen || !servers {
		return "", fmt.Errorf("want a listen and upstream server lines (listen %v, server %v)", listen, servers)
	}
	return strings.Join(out, "\n"), nil
}

// stop ends nginx: SIGTERM (its fast stop: a stream open would hold a
// graceful one), then its group killed
// past ExitBound.
func (n *Nginx) stop(t testing.TB) {
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.exited:
	case <-time.After(ExitBound):
		t.Errorf("nginx did not exit %v after SIGTERM; killing its group", ExitBound)
		_ = procgroup.Kill(n.cmd.Process.Pid)
		<-n.exited
	}
}
