package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestOpsContenders: ops-off and ops-on run side by side and the ops
// table has their p50, p90 and ratios for each number of callers. ops-on
// checks, as it closes, that its audit log has a line a call, and the
// harness that its receiver got two spans a call: a run that passes had
// the operations really on.
func TestOpsContenders(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the app and its server: not under -short")
	}
	o, err := parseFlags([]string{"-servers", "floor", "-transports", "stdio", "-contenders", "ops-off,ops-on",
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
	want(t, text, `What operations cost a call through the gateway`)
	for _, callers := range []string{"1", "3"} {
		lead := `(?m)^\s*floor\s+stdio\s+` + callers + `\s+`
		// off and on p50, the ratio; off and on p90, the ratio; CPU, allocations, KB (off, on).
		want(t, text, lead+`[0-9.]+\s+[0-9.]+\s+`+ratio+`\s+[0-9.]+\s+[0-9.]+\s+`+ratio+`\s+[0-9.]+, [0-9.]+\s+[0-9]+, [0-9]+\s+[0-9.]+, [0-9.]+\s*$`)
	}
	if left := leftovers(t); len(left) > 0 {
		t.Errorf("processes left behind:\n%s", strings.Join(left, "\n"))
	}
}
