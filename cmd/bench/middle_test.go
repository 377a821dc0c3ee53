package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// The gateway contenders run with a tiny config: serve always, mcp-hub
// only when $SWITCHBOARD_BENCH_PEERS_DIR points at it (`make bench-peers`
// installs it; `make test` neither installs it nor sets the variable, so
// it is never required, not under CI either). Each prints its row, and a
// row of the gateway table with its ratio and its process's CPU; nothing
// is left behind. Nothing here looks at a time.
//
//	$ SWITCHBOARD_BENCH_PEERS_DIR=$PWD/test/bench-peers/node_modules go test -run Middle ./cmd/bench
func TestMiddleContenders(t *testing.T) {
	if testing.Short() {
		t.Skip("starts gateways and their servers: not under -short")
	}
	contenders := []string{"bare", "serve"}
	dir := peers.Dir(t) // node, for mcp-hub; fails under CI when missing
	var hub string
	if os.Getenv(EnvMCPHub) == "" {
		t.Logf("mcphub left out: %s is not set", EnvMCPHub)
	} else if script, _, err := findMCPHub(dir); err != nil {
		t.Fatalf("mcphub: %v", err)
	} else {
		hub = script
		contenders = append(contenders, "mcphub")
	}
	o, err := parseFlags([]string{"-servers", "demo", "-transports", "stdio", "-contenders", strings.Join(contenders, ","),
		"-rounds", "2", "-calls", "20", "-warmup", "5", "-callers", "1,3",
		"-startup", "", "-warm", "", "-era-rounds", "0"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	var out, progress bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	err = run(ctx, o, &out, &progress)
	t.Logf("output:\n%s", out.String())
	if err != nil {
		t.Fatalf("run: %v\nprogress:\n%s", err, progress.String())
	}
	text := out.String()
	ratio := `[0-9.]+ \[[0-9.]+–[0-9.]+\]`
	for _, callers := range []string{"1", "3"} {
		lead := `(?m)^\s*demo\s+stdio\s+` + callers + `\s+`
		for _, c := range contenders {
			want(t, text, lead+c+`\s+[0-9]`)
		}
		row := lead + `[0-9.]+\s+[0-9.]+\s+`
		if hub != "" {
			// bare, serve, mcphub p50; three ratios; two CPU figures.
			row += `[0-9.]+\s+` + ratio + `\s+` + ratio + `\s+` + ratio + `\s+[0-9.]+\s+[0-9.]+\s*$`
		} else {
			row += `–\s+` + ratio + `\s+–\s+–\s+[0-9.]+\s+–\s*$`
		}
		want(t, text, row)
	}
	if left := leftovers(t); len(left) > 0 {
		t.Errorf("processes left behind:\n%s", strings.Join(left, "\n"))
	}
	if hub != "" {
		if left := running(t, hub); len(left) > 0 {
			t.Errorf("mcp-hub left behind:\n%s", strings.Join(left, "\n"))
		}
	}
}

// hubReady tells a started hub from one whose port was taken or whose
// server failed, by the lines mcp-hub 4.2.1 writes.
func TestHubReady(t *testing.T) {
	for _, tt := range []struct {
		line      string
		ready     bool
		portTaken bool
		fails     bool
	}{
		{line: `{"type":"info","message":"Hub endpoint ready: Use ` + "`http://localhost:1/mcp`" + `","data":{}}`},
		{line: `{"type":"info","message":"1/1 servers started successfully","data":{"total":1,"successful":1,"failed":0,"disabled":0,"failedServers":[]}}`, ready: true},
		{line: `{"type":"info","message":"0/1 servers started successfully","data":{"total":1,"successful":0,"failed":1,"disabled":0,"failedServers":["bench"]}}`, fails: true},
		{line: `{"type":"info","message":"HTTP_SERVER_START_ERROR: EADDRINUSE: address already in use :::1","data":{}}`, portTaken: true},
		{line: `not json`},
	} {
		ready, err := hubReady(tt.line)
		if ready != tt.ready || (err != nil) != (tt.fails || tt.portTaken) || tt.portTaken != (err == errPortTaken) {
			t.Errorf("hubReady(%s) = %v, %v", tt.line, ready, err)
		}
	}
}

// make bench-gateways runs this harness with both gateway contenders.
func TestMakeBenchGateways(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^bench-gateways:.*\n((?:\t.*\n)+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("Makefile has no bench-gateways target")
	}
	g := regexp.MustCompile(`(?m)^BENCH_GATEWAYS :=.*(?:\\\n.*)*`).Find(b)
	if !strings.Contains(string(m[1]), "./cmd/bench") || !regexp.MustCompile(`-contenders \S*serve\S*mcphub`).Match(g) {
		t.Errorf("make bench-gateways does not run ./cmd/bench with serve and mcphub:\n%s%s", m[1], g)
	}
}

// running lists the live processes whose command line has s in it.
func running(t *testing.T, s string) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc to look for processes in")
	}
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if bytes.Contains(cmdline, []byte(s)) {
			if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
				continue
			}
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return out
}
