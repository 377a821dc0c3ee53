//go:build unix

package replicatest_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/procgroup"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
	"github.com/switchboard-mcp/switchboard/internal/testkit/replicatest"
)

// TestMain: the counting upstream, or the tests, with a line saying how
// many skipped for want of the npm peers.
func TestMain(m *testing.M) { os.Exit(replicatest.Main(peers.Reporting(m))) }

// The two protocol eras: a legacy session lives in one replica; a
// 2026-07-28 request goes to any.
const (
	legacy = "2025-11-25"
	next   = "2026-07-28"
)

// callBound bounds one call or list in these tests: a call that hangs
// fails its test rather than the test binary's timeout.
const callBound = 30 * time.Second

// connect begins a session at url in era version; the test's end closes it.
func connect(t *testing.T, url, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	s, err := dial(t.Context(), url, version, opts)
	if err != nil {
		t.Fatalf("connect %s (%s): %v", url, version, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func dial(ctx context.Context, url, version string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(ctx, callBound)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "replicatest", Version: "1"}, opts)
	// No retry of a stream cut by a replica that went: the test sees the
	// cut as the client's error.
	tr := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}
	return c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
}

// callText calls tool with args and returns its text, failing the test
// on an error or an error result.
func callText(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), callBound)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("call %s: error result %s", tool, resultText(res))
	}
	return resultText(res)
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// listTools is every page of tools/list.
func listTools(t *testing.T, s *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), callBound)
	defer cancel()
	var tools []*mcp.Tool
	for tool, err := range s.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		tools = append(tools, tool)
	}
	return tools
}

func names(tools []*mcp.Tool) []string {
	var out []string
	for _, tl := range tools {
		out = append(out, tl.Name)
	}
	return out
}

// hash is the SHA-256 of the tools as JSON, in their order: two lists
// hash alike only if every name, description, schema and annotation and
// the order are the same.
func hash(t *testing.T, tools []*mcp.Tool) string {
	t.Helper()
	data, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// notes counts the notifications a client gets and lets a test await
// the next.
type notes struct {
	mu sync.Mutex
	n  int
	c  chan struct{}
}

func newNotes() *notes { return &notes{c: make(chan struct{}, 64)} }

func (n *notes) note() {
	n.mu.Lock()
	n.n++
	n.mu.Unlock()
	select {
	case n.c <- struct{}{}:
	default:
	}
}

// await waits, under callBound, for one notification not yet awaited.
func (n *notes) await(t *testing.T, what string) {
	t.Helper()
	select {
	case <-n.c:
	case <-time.After(callBound):
		t.Fatalf("%s: no notification in %v", what, callBound)
	}
}

// tsClient runs test/peers/gateway-client.mjs (the TypeScript SDK's
// client) with args, calls atPause with the steps so far when it
// pauses, and returns its step lines. It skips where the npm peers are not installed.
func tsClient(t *testing.T, args []string, atPause func(steps []map[string]any)) []map[string]any {
	t.Helper()
	node := peers.Node(t)
	script := filepath.Join(filepath.Dir(peers.Dir(t)), "gateway-client.mjs")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(node, append([]string{script}, args...)...)
	procgroup.Set(cmd)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := context.AfterFunc(ctx, func() { _ = procgroup.Kill(cmd.Process.Pid) })
	defer stop()
	var steps []map[string]any
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var s map[string]any
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Errorf("TS client: not a JSON line: %q", sc.Bytes())
			continue
		}
		if s["event"] == "pause" {
			atPause(steps)
			if _, err := io.WriteString(stdin, "go\n"); err != nil {
				t.Errorf("resuming the TS client: %v", err)
			}
			continue
		}
		steps = append(steps, s)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil || ctx.Err() != nil {
		t.Errorf("the TS client: %v (%v)\nstderr:\n%s", err, ctx.Err(), stderr.String())
	}
	return steps
}

// step is the first step line of that kind.
func step(t *testing.T, steps []map[string]any, kind string) map[string]any {
	t.Helper()
	for _, s := range steps {
		if s["step"] == kind {
			return s
		}
	}
	t.Fatalf("the TS client printed no %s step: %v", kind, steps)
	return nil
}
