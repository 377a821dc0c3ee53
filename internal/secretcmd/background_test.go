//go:build unix

package secretcmd

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit/proctest"
)

// A helper that leaves a process running — in its group, or by setsid out
// of it — still answers at once with what it printed, and what it left is
// ended (DESIGN.md, "Secrets").
func TestRunEndsWhatAHelperLeft(t *testing.T) {
	for _, tc := range []struct{ name, form string }{
		{"in the group", "sleep %[1]s & echo tok-bg"},
		{"setsid", "setsid sleep %[1]s & echo tok-bg"},
		// It answers once the left process ignores SIGTERM (the file says so).
		{"setsid, ignoring SIGTERM", `setsid sh -c "trap '' TERM; touch %[2]s; exec sleep %[1]s" & while [ ! -e %[2]s ]; do :; done; echo tok-bg`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arg := proctest.UniqueSleep()
			t.Cleanup(func() { proctest.KillSleeping(arg) })
			var r Runner
			begin := time.Now()
			out, err := r.Run(context.Background(), fmt.Sprintf(tc.form, arg, filepath.Join(t.TempDir(), "ready")), "")
			took := time.Since(begin)
			if err != nil || out != "tok-bg" {
				t.Fatalf("Run = %q, %v; want tok-bg", out, err)
			}
			// Far below Timeout; the bound is the left process's grace.
			if took > 5*time.Second {
				t.Errorf("Run took %s", took)
			}
			if runtime.GOOS != "linux" && tc.name != "in the group" {
				return // only the group is ended there
			}
			if pids := proctest.Sleeping(arg); len(pids) > 0 {
				t.Errorf("sleep %s still running as %v", arg, pids)
			}
		})
	}
}
