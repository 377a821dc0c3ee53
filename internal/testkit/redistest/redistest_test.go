package redistest_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testkit/redistest"
)

// TestStartStop: two servers at once, each on its own port; stopped, a
// server's process is gone (not even a zombie: its exit was awaited).
func TestStartStop(t *testing.T) {
	a, b := redistest.Start(t), redistest.Start(t)
	if a.Addr == b.Addr {
		t.Fatalf("two servers on %s", a.Addr)
	}
	pid := a.Pid()
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
		t.Fatalf("redis-server %d not running: %v", pid, err)
	}
	a.Stop()
	<-a.Exited()
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); !os.IsNotExist(err) {
		t.Errorf("redis-server %d left after Stop: %v", pid, err)
	}
	a.Restart()
	if a.Pid() == pid {
		t.Error("Restart kept the old process")
	}
}
