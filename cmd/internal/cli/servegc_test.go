package cli

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

// gcSettings restores the process's GOGC and memory limit, and its GOGC
// and GOMEMLIMIT variables, when t ends, and unsets the variables.
func gcSettings(t *testing.T) {
	t.Helper()
	percent := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Setenv(name, "") // restored at the end
		os.Unsetenv(name)
	}
}

func TestTuneServeGC(t *testing.T) {
	t.Run("unset", func(t *testing.T) {
		gcSettings(t)
		debug.SetMemoryLimit(math.MaxInt64)
		note := tuneServeGC()
		if spare, _ := memoryLimitFor(serveMemoryLimit); spare < serveMemoryFloor {
			// A small machine or cgroup: Go's defaults, and the note says so.
			if got := debug.SetGCPercent(100); got != 100 || !strings.Contains(note, "Go's defaults") {
				t.Errorf("GOGC = %d, note %q; want Go's 100 with %d MiB to spare", got, note, spare>>20)
			}
			return
		}
		if got := debug.SetGCPercent(100); got != serveGCPercent {
			t.Errorf("GOGC = %d, want %d", got, serveGCPercent)
		}
		got := debug.SetMemoryLimit(-1)
		if got < serveMemoryFloor || got > serveMemoryLimit {
			t.Errorf("memory limit = %d, want %d to %d", got, serveMemoryFloor, serveMemoryLimit)
		}
		if want := fmt.Sprintf("soft memory limit %d MiB", got>>20); !strings.Contains(note, want) {
			t.Errorf("note %q; want it to say %q", note, want)
		}
	})
	t.Run("GOGC set", func(t *testing.T) {
		gcSettings(t)
		t.Setenv("GOGC", "150")
		debug.SetGCPercent(150) // as the runtime read it at start
		debug.SetMemoryLimit(math.MaxInt64)
		if note := tuneServeGC(); note != "" {
			t.Errorf("note %q; want none (the user chose)", note)
		}
		if got := debug.SetGCPercent(-1); got != 150 {
			t.Errorf("GOGC = %d, want the user's 150", got)
		}
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
			t.Errorf("memory limit = %d, want none", got)
		}
	})
	t.Run("GOMEMLIMIT set", func(t *testing.T) {
		gcSettings(t)
		t.Setenv("GOMEMLIMIT", "100MiB")
		debug.SetMemoryLimit(100 << 20)
		tuneServeGC()
		if got := debug.SetGCPercent(100); got != serveGCPercent {
			t.Errorf("GOGC = %d, want %d", got, serveGCPercent)
		}
		if got := debug.SetMemoryLimit(-1); got != 100<<20 {
			t.Errorf("memory limit = %d, want the user's %d", got, 100<<20)
		}
	})
}

func TestMemoryLimitFor(t *testing.T) {
	if got, why := memoryLimitFor(serveMemoryLimit); got <= 0 || got > serveMemoryLimit || why == "" {
		t.Errorf("memoryLimitFor(%d) = %d (%s)", serveMemoryLimit, got, why)
	}
	if got, _ := memoryLimitFor(1 << 20); got > 1<<20 {
		t.Errorf("memoryLimitFor(1 MiB) = %d: raised", got)
	}
}
