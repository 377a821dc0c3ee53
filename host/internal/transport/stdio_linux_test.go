package transport

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testkit/proctest"
)

// A process that left the server's group (setsid) ends with the server,
// whether the host closes it or it exited by itself first (DESIGN.md F17).
func TestCloseEndsWhatLeftTheGroup(t *testing.T) {
	for _, tc := range []struct{ name, then string }{
		{"closed", "exec sleep 600"},
		{"exited", "read line; exit 3"}, // exits once the test writes a line
	} {
		t.Run(tc.name, func(t *testing.T) {
			arg := proctest.UniqueSleep()
			tr := NewStdio(&config.ServerConfig{
				Name:    "escaper",
				Command: "/bin/sh",
				Args:    []string{"-c", "setsid sleep " + arg + " & " + tc.then},
			}, t.TempDir(), Hooks{})
			conn, err := tr.Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			awaitSleep(t, arg)
			t.Cleanup(func() { proctest.KillSleeping(arg) })
			if tc.name == "exited" {
				if _, err := tr.stdin.WriteString("go\n"); err != nil {
					t.Fatal(err)
				}
				<-tr.Exited()
			}
			if err := conn.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if left := proctest.Sleeping(arg); len(left) > 0 {
				t.Errorf("sleep %s still running as %v after Close", arg, left)
			}
		})
	}
}
func awaitSleep(t *testing.T, arg string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if len(proctest.Sleeping(arg)) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sleep %s never started", arg)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
