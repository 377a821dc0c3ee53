package transport

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
)

// A process that left the server's group (setsid) ends with the server,
// whether the host closes it or it exited by itself first (DESIGN.md F17).
func TestCloseEndsWhatLeftTheGroup(t *testing.T) {
	for _, tc := range []struct{ name, then string }{
		{"closed", "exec sleep 600"},
		{"exited", "read line; exit 3"}, // exits once the test writes a line
	} {
		t.Run(tc.name, func(t *testing.T) {
			arg := uniqueSleep()
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
			t.Cleanup(func() { killSleeping(arg) })
			if tc.name == "exited" {
				if _, err := tr.stdin.WriteString("go\n"); err != nil {
					t.Fatal(err)
				}
				<-tr.Exited()
			}
			if err := conn.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if left := sleeping(arg); len(left) > 0 {
				t.Errorf("sleep %s still running as %v after Close", arg, left)
			}
		})
	}
}

// uniqueSleep is a sleep argument no other test's process has.
func uniqueSleep() string { return strconv.Itoa(1_000_000 + rand.IntN(9_000_000)) }

// sleeping lists the running processes that are "sleep arg".
func sleeping(arg string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		// A zombie's cmdline is empty: only a running sleep matches.
		if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); string(cmdline) == "sleep\x00"+arg+"\x00" {
			pids = append(pids, pid)
		}
	}
	return pids
}

func awaitSleep(t *testing.T, arg string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if len(sleeping(arg)) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sleep %s never started", arg)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// killSleeping kills, by pid, what a failed test left: the argument is
// this test's alone.
func killSleeping(arg string) {
	for _, pid := range sleeping(arg) {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	}
}
