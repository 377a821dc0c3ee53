package bridge_test

// The TypeScript SDK's client (test/peers/gateway-client.mjs), the one
// most client apps use, launches a bridge as it would launch `switchboard
// serve`: this test binary as the program (TestMain, envBridgeSocket),
// attached to a test daemon on a unix socket.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// tsRunBound bounds one scripted session: node starts in well under a
// second; a 2-core machine running other packages' race tests is many
// times slower.
const tsRunBound = 2 * time.Minute

// tsRun is one TypeScript client's run: its steps, by name, in order.
type tsRun struct {
	steps  []map[string]any
	stderr string
	err    error
}

func (r *tsRun) step(t *testing.T, name string, n int) map[string]any {
	t.Helper()
	for _, s := range r.steps {
		if s["step"] == name {
			if n == 0 {
				return s
			}
			n--
		}
	}
	t.Fatalf("the TS client has no step %s #%d: %v\nstderr:\n%s", name, n, r.steps, r.stderr)
	return nil
}

// runTS runs the TS client with args against a bridge program on the
// socket at path; at its pause it sends on paused and waits for resume.
func runTS(ctx context.Context, node, script, path string, args []string, paused chan<- struct{}, resume <-chan struct{}) *tsRun {
	exe, err := os.Executable()
	if err != nil {
		return &tsRun{err: err}
	}
	spec, _ := json.Marshal(map[string]any{"command": exe, "args": []string{}, "env": map[string]string{envBridgeSocket: path}})
	cmd := exec.CommandContext(ctx, node, append(append([]string{script}, args...), "--stdio", string(spec))...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return &tsRun{err: err}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return &tsRun{err: err}
	}
	if err := cmd.Start(); err != nil {
		return &tsRun{err: err}
	}
	r := &tsRun{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var s map[string]any
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			continue
		}
		if s["event"] == "pause" {
			paused <- struct{}{}
			select {
			case <-resume:
			case <-ctx.Done():
			}
			_, _ = io.WriteString(stdin, "go\n")
			continue
		}
		r.steps = append(r.steps, s)
	}
	stdin.Close()
	r.err = cmd.Wait()
	r.stderr = stderr.String()
	return r
}

// TestTSClients: two TypeScript clients, each launching its own bridge,
// share the daemon's one server; the daemon dies and another takes its
// socket while they wait; both are told, get tools/list_changed, and go on
// calling in the sessions their bridges restored.
func TestTSClients(t *testing.T) {
	node := peers.Node(t)
	script := filepath.Join(filepath.Dir(peers.Dir(t)), "gateway-client.mjs")
	path := filepath.Join(t.TempDir(), "d.sock")
	// Each client samples through a server of its own: the gateway takes
	// a server's request to the one client calling it.
	d1 := startDaemon(t, path, "demo", "s0", "s1")
	args := func(i int) []string {
		s := fmt.Sprintf("s%d__sample", i)
		return []string{"--sampling", "sampled in TypeScript",
			"--list",
			"--call", "demo__pid",
			"--call", s, "--args", `{"text":"hi"}`,
			"--pause",
			// The bridge's own list_changed comes as soon as it is back;
			// the new daemon's view may still be taking its tools in,
			// and says so with one of its own: wait for the tool.
			"--wait-for-tool", s, "--within", "60000",
			"--call", "demo__pid",
			"--call", "demo__echo", "--args", `{"text":"after the daemon came back"}`,
			"--call", s, "--args", `{"text":"again"}`,
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), tsRunBound)
	defer cancel()
	paused, resume := make(chan struct{}, 2), make(chan struct{})
	runs := make([]*tsRun, 2)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() { runs[i] = runTS(ctx, node, script, path, args(i), paused, resume) })
	}
	for range runs {
		select {
		case <-paused:
		case <-ctx.Done():
			wg.Wait()
			t.Fatalf("the TS clients did not reach their pause: %v", ctx.Err())
		}
	}
	if n := d1.sessionCount(); n != 2 {
		t.Errorf("the daemon had %d sessions, want one per client", n)
	}
	d1.close()
	d2 := startDaemon(t, path, "demo", "s0", "s1")
	for _, st := range d2.a.Host().Status() {
		if st.State != host.StateConnected {
			t.Errorf("the second daemon's %s: %s %s", st.Name, st.State, st.Error)
		}
	}
	close(resume)
	wg.Wait()

	var pids []string
	for i, r := range runs {
		if r.err != nil {
			t.Errorf("client %d: %v\nsteps: %v\nstderr:\n%s", i, r.err, r.steps, r.stderr)
			continue
		}
		if s := r.step(t, "call", 1); s["text"] != "sampled in TypeScript" {
			t.Errorf("client %d: sample: %v", i, s)
		}
		if s := r.step(t, "wait-for-tool", 0); s["ok"] != true {
			t.Errorf("client %d: no tools/list_changed after the reconnect: %v", i, s)
		}
		if s := r.step(t, "call", 3); s["text"] != "after the daemon came back" {
			t.Errorf("client %d: echo after the reconnect: %v", i, s)
		}
		if s := r.step(t, "call", 4); s["text"] != "sampled in TypeScript" {
			t.Errorf("client %d: sample after the reconnect: %v", i, s)
		}
		if !strings.Contains(r.stderr, "switchboard: lost the daemon") || !strings.Contains(r.stderr, "switchboard: reconnected to the daemon") {
			t.Errorf("client %d: the bridge's stderr does not say it lost and found the daemon:\n%s", i, r.stderr)
		}
		pids = append(pids, r.step(t, "call", 0)["text"].(string), r.step(t, "call", 2)["text"].(string))
	}
	t.Logf("server pids (first daemon, second daemon) per client: %v", pids)
	if len(pids) == 4 && (pids[0] != pids[2] || pids[1] != pids[3] || pids[0] == pids[1]) {
		t.Errorf("server pids (first daemon, second daemon) per client: %v; want one server per daemon, shared", pids)
	}
}
