//go:build unix

package replicatest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// upstreamEnv makes the test binary the counting upstream server (Main):
// its value is the file each call's id is appended to.
const upstreamEnv = "SWITCHBOARD_REPLICATEST_RUNS"

// serialEnv, set, makes the counting upstream run one call at a time: a
// replica's capacity then is its upstream's, which three replicas triple
// on any number of cores.
const serialEnv = "SWITCHBOARD_REPLICATEST_SERIAL"

// Main is a replica test binary's TestMain: as the counting upstream
// (Upstream's entry runs this binary) it serves over stdio and exits;
// else it runs the tests, removes the switchboard it built and fails
// the run if a goroutine is left (goleak).
func Main(m interface{ Run() int }) int {
	if runs := os.Getenv(upstreamEnv); runs != "" {
		if err := serveUpstream(runs, os.Getenv(serialEnv) != ""); err != nil {
			fmt.Fprintf(os.Stderr, "counting upstream: %v\n", err)
			return 1
		}
		return 0
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	// Every goroutine a test started has ended with it; the HTTP
	// clients' idle connections are the transport's, closed here.
	http.DefaultClient.CloseIdleConnections()
	if err := goleak.Find(); code == 0 && err != nil {
		fmt.Fprintf(os.Stderr, "replicatest: goroutines left: %v\n", err)
		code = 1
	}
	return code
}

// Upstream is a config entry for the counting upstream: a stdio server
// (this test binary) whose tool "work" {id, ms} appends id to runs as it
// starts, so a test counts how often each call ran across every
// replica's copy of it, then waits ms and answers "done ID". serial makes
// it run one call at a time.
func (c *Cluster) Upstream(t testing.TB, runs string, serial bool) map[string]any {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{upstreamEnv: runs, MarkEnv: c.Mark}
	if serial {
		env[serialEnv] = "1"
	}
	return map[string]any{"command": exe, "args": []string{"-test.run=^$"}, "env": env}
}

type workIn struct {
	ID string `json:"id" jsonschema:"the call's id, appended to the runs file as it starts"`
	MS int    `json:"ms,omitempty" jsonschema:"how many milliseconds the call takes"`
}

func serveUpstream(runs string, serial bool) error {
	f, err := os.OpenFile(runs, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	var one sync.Mutex
	s := mcp.NewServer(&mcp.Implementation{Name: "count", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "work", Description: "Counts a run of id, then waits ms milliseconds."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in workIn) (*mcp.CallToolResult, any, error) {
			if serial {
				one.Lock()
				defer one.Unlock()
			}
			// One write of one line: O_APPEND keeps the lines of every
			// replica's upstream whole.
			if _, err := f.WriteString(in.ID + "\n"); err != nil {
				return nil, nil, err
			}
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done " + in.ID}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "This process's id."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(os.Getpid())}}}, nil, nil
		})
	return s.Run(context.Background(), &mcp.StdioTransport{})
}

// Runs reads a runs file: how many times each id ran.
func Runs(t testing.TB, runs string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(runs)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, id := range strings.Fields(string(data)) {
		n[id]++
	}
	return n
}

// built is the switchboard binary, built once per test binary.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// Binary builds ./cmd/switchboard once per test binary (Main removes
// it) and returns its path. It skips where there is no go command.
func Binary(t testing.TB) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("switchboard is built with the go command, which is not on PATH: %v", err)
	}
	built.once.Do(func() {
		root, err := peers.ModuleRoot()
		if err != nil {
			built.err = err
			return
		}
		if built.dir, err = os.MkdirTemp("", "replicatest-"); err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(built.dir, "switchboard")
		cmd := exec.Command(goCmd, "build", "-o", built.bin, "./cmd/switchboard")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build ./cmd/switchboard: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}
