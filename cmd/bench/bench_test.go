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

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// TestMain lets the test binary play the harness's roles: the harness
// re-executes itself, and here itself is this binary.
func TestMain(m *testing.M) {
	if code, ok := runRole(); ok {
		os.Exit(code)
	}
	// A race-built child would otherwise pause a second at exit.
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	goleak.VerifyTestMain(peers.Reporting(m))
}

// The harness runs every case with a tiny config, prints a row for each
// contender of each case and a ratio row for each case, and leaves no
// process behind. Nothing here looks at a time.
func TestTinyRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts some sixty processes: not under -short")
	}
	// Fails under CI when the peers are missing, skips elsewhere.
	peers.Dir(t)
	o, err := parseFlags([]string{"-rounds", "2", "-calls", "20", "-warmup", "5", "-callers", "1,3",
		"-startup", "1,2", "-warm", "2", "-startup-rounds", "1", "-era-rounds", "2"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	var out, progress bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	err = run(ctx, o, &out, &progress)
	t.Logf("output:\n%s", out.String())
	if err != nil {
		t.Fatalf("run: %v\nprogress:\n%s", err, progress.String())
	}
	text := out.String()
	for _, server := range allServers {
		for _, transport := range allTransports {
			for _, callers := range []string{"1", "3"} {
				lead := `(?m)^\s*` + server + `\s+` + transport + `\s+` + callers + `\s+`
				for _, c := range allContenders {
					// A figure, not a dash: every contender ran.
					want(t, text, lead+c+`\s+[0-9]`)
				}
				want(t, text, lead+`[0-9.]+ \[[0-9.]+–[0-9.]+\]\s+[0-9.]+ \[[0-9.]+–[0-9.]+\]\s+[0-9.]+ \[`)
			}
		}
	}
	for _, n := range []string{"1", "2"} {
		for _, c := range startupContenders {
			want(t, text, `(?m)^\s*`+n+`\s+`+c+`\s+[0-9]`)
		}
	}
	// Close is measured for the Go clients, a ratio beside bare's.
	want(t, text, `(?m)^\s*2\s+bare\s+.*\]\s+[0-9.]+\s+[0-9.]+–[0-9.]+\s+[0-9.]+ \[`)
	want(t, text, `(?m)^Start-up with a warm tool cache`)
	want(t, text, `(?m)^\s*2\s+[0-9.]+\s+[0-9.]+–[0-9.]+\s+[0-9.]+`)
	want(t, text, `(?m)^Connect time by protocol era`)
	for _, c := range eraCases(0) {
		want(t, text, `(?m)^\s*`+regexp.QuoteMeta(c.name)+`\s+[0-9.]+\s+[0-9.]+–[0-9.]+\s`)
	}
	// Two rounds of three contenders or more: progress shows the turns.
	want(t, progress.String(), `round 2/2, p50 µs: gateway [0-9.]+ bare [0-9.]+ ts [0-9.]+ raw [0-9.]+ host [0-9.]+`)
	if left := leftovers(t); len(left) > 0 {
		t.Errorf("processes left behind:\n%s", strings.Join(left, "\n"))
	}
}

// -oneshot-rounds runs `switchboard call` as a fresh process with six
// servers configured and with one, and prints both rows with a ratio.
func TestOneShot(t *testing.T) {
	peers.Dir(t) // server-everything is one of the six
	o, err := parseFlags([]string{"-servers", "", "-startup", "", "-warm", "", "-era-rounds", "0", "-oneshot-rounds", "2"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	var out, progress bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := run(ctx, o, &out, &progress); err != nil {
		t.Fatalf("run: %v\nprogress:\n%s", err, progress.String())
	}
	text := out.String()
	want(t, text, `Configured: 6 stdio servers \(a, b, c, d, e, everything\)`)
	want(t, text, `(?m)^\s*after\s+[0-9.]+\s+[0-9.]+–[0-9.]+\s*$`)
	want(t, text, `(?m)^\s*alone\s+[0-9.]+\s+[0-9.]+–[0-9.]+\s+[0-9.]+ \[[0-9.]+–[0-9.]+\]`)
	want(t, progress.String(), `one-shot call, round 2/2, ms: alone [0-9.]+ after [0-9.]+`)
	if left := leftovers(t); len(left) > 0 {
		t.Errorf("processes left behind:\n%s", strings.Join(left, "\n"))
	}
}

// -eras runs the eras alone.
func TestErasOnly(t *testing.T) {
	o, err := parseFlags([]string{"-eras", "-era-rounds", "3"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Servers) > 0 || len(o.Startup) > 0 || len(o.WarmStartup) > 0 || o.EraRounds != 3 {
		t.Errorf("-eras: %+v; want eras alone, 3 rounds", o)
	}
}

func want(t *testing.T, text, pattern string) {
	t.Helper()
	if !regexp.MustCompile(pattern).MatchString(text) {
		t.Errorf("no match for %s", pattern)
	}
}

// leftovers lists the processes still running this test binary, which
// every Go role and server of the harness is, but this one, and the
// TypeScript clients of this work tree.
func leftovers(t *testing.T) []string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc to look for processes in")
	}
	tsClient := filepath.Join(filepath.Dir(peers.Dir(t)), "bench-client.mjs")
	var left []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if exe != self && !bytes.Contains(cmdline, []byte(tsClient)) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
			continue // a zombie is already gone, waiting for its parent
		}
		left = append(left, strconv.Itoa(pid)+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return left
}

// make bench runs this harness.
func TestMakeBench(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^bench:.*\n((?:\t.*\n)+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("Makefile has no bench target")
	}
	if !strings.Contains(string(m[1]), "./cmd/bench") {
		t.Errorf("make bench does not run ./cmd/bench:\n%s", m[1])
	}
}
