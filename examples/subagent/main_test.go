package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/daemon"
	"github.com/switchboard-mcp/switchboard/demoserver"
)

// TestMain is the program's other parts when the example starts this
// test binary as the demo server or as the child.
func TestMain(m *testing.M) {
	if demoserver.Serving() || os.Getenv(daemon.EnvSocket) != "" {
		os.Exit(run(context.Background(), os.Stdout))
	}
	goleak.VerifyTestMain(m)
}

// TestExample runs the example: the child lists and calls through the
// parent's host, with progress, and exactly one server process ran.
func TestExample(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	servers := make(chan []int, 1)
	if err := parentWatched(ctx, &out, servers); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := regexp.MustCompile(`^parent: server pid (\d+)
child: \d+ tools, among them mcp__demo__sleep
child: progress: sleeping 10 ms
child: slept 10 ms
child: server pid (\d+)
parent: one server process \(pid (\d+)\) served both
$`)
	m := want.FindStringSubmatch(out.String())
	if m == nil || m[1] != m[2] || m[2] != m[3] {
		t.Fatalf("output:\n%s", out.String())
	}
	if got := <-servers; len(got) != 1 || strconv.Itoa(got[0]) != m[1] {
		t.Errorf("demo server processes %v, want exactly [%s]", got, m[1])
	}
}

// parentWatched runs parent and, while the child's answer is in, counts
// the demo server processes this process started.
func parentWatched(ctx context.Context, out *bytes.Buffer, servers chan<- []int) error {
	w := &countingWriter{out: out, servers: servers}
	return parent(ctx, w)
}

// countingWriter counts the server processes when the parent says the
// child is done, before the parent closes anything.
type countingWriter struct {
	out     *bytes.Buffer
	servers chan<- []int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	if strings.HasPrefix(string(p), "parent: one server process") {
		w.servers <- demoChildren()
	}
	return w.out.Write(p)
}

// demoChildren are this process's children serving the demo.
func demoChildren() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	self := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		_, rest, _ := strings.Cut(string(stat), ") ")
		if f := strings.Fields(rest); len(f) < 2 || f[1] != self || f[0] == "Z" {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(string(cmdline), "\x00--name\x00demo") {
			pids = append(pids, pid)
		}
	}
	return pids
}
