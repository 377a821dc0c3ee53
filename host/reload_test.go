package host_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// Reload restarts exactly what changed: the unchanged server keeps its
// process and its in-flight call, the changed one restarts, the removed
// one stops, the added one starts, and a metadata change applies in place.
func TestReload(t *testing.T) {
	keep, change, drop := demoServer(t, "keep"), demoServer(t, "change"), demoServer(t, "drop")
	h := start(t, nil, keep, change, drop)
	pids := map[string]int{}
	for _, st := range h.Status() {
		pids[st.Name] = st.PID
	}
	sub := h.Subscribe()
	defer sub.Close()

	inFlight := make(chan error, 1)
	go func() {
		res, err := h.CallTool(context.Background(), "mcp__keep__sleep", map[string]any{"ms": 1500})
		if err == nil && res.IsError {
			err = errors.New(host.ResultText(res))
		}
		inFlight <- err
	}()
	await(t, sub, "sleep running", func(e host.Event) bool {
		return e.Type == host.EventProgress && e.Tool == "mcp__keep__sleep"
	})

	keep2 := keep
	keep2.AutoApprove = []string{"echo"}
	change2 := change
	change2.Args = append(append([]string(nil), change.Args...), "--stderr-lines")
	add := demoServer(t, "add")
	diff, err := h.Reload(context.Background(), []config.ServerConfig{keep2, change2, add})
	if err != nil {
		t.Fatal(err)
	}
	want := config.Diff{Added: []string{"add"}, Removed: []string{"drop"}, Changed: []string{"change"}, Updated: []string{"keep"}}
	if d := cmp.Diff(want, diff); d != "" {
		t.Errorf("diff (-want +got):\n%s", d)
	}
	if err := <-inFlight; err != nil {
		t.Errorf("in-flight call on the unchanged server: %v", err)
	}
	got := map[string]host.Status{}
	for _, st := range h.Status() {
		got[st.Name] = st
	}
	if got["keep"].PID != pids["keep"] {
		t.Errorf("unchanged server restarted: pid %d -> %d", pids["keep"], got["keep"].PID)
	}
	if got["change"].PID == pids["change"] || got["change"].State != host.StateConnected {
		t.Errorf("changed server: %+v (old pid %d)", got["change"], pids["change"])
	}
	if _, ok := got["drop"]; ok || alive(pids["drop"]) {
		t.Errorf("removed server still there (pid %d alive=%v)", pids["drop"], alive(pids["drop"]))
	}
	if alive(pids["change"]) {
		t.Errorf("changed server's old process %d still running", pids["change"])
	}
	if got["add"].State != host.StateConnected {
		t.Errorf("added server: %+v", got["add"])
	}
	if tool, _ := toolNamed(h, "mcp__keep__echo"); !tool.AutoApprove {
		t.Error("auto-approve change not applied in place")
	}
	if _, ok := toolNamed(h, "mcp__drop__echo"); ok {
		t.Error("removed server's tools still offered")
	}

	// The reload's own change event comes after the old servers are gone.
	stopped := map[string]bool{}
	await(t, sub, "the reload's tool event", func(e host.Event) bool {
		if e.Type == host.EventState && e.State == host.StateDisconnected {
			stopped[e.Server] = true
		}
		return e.Type == host.EventTools
	})
	if !stopped["drop"] || !stopped["change"] {
		t.Errorf("tool event before the old servers stopped: %v", stopped)
	}

	// Reloading the same configs changes nothing.
	diff, err = h.Reload(context.Background(), []config.ServerConfig{keep2, change2, add})
	if err != nil || !diff.Empty() {
		t.Errorf("second reload: %+v, %v", diff, err)
	}
}

// TestReloadMovedEntry: an edit above a server's entry moves it down its
// file. The reload's diff is empty (nothing of the server's changed, and
// watch says nothing of it), yet the host shows the new line, and the
// server keeps its process.
func TestReloadMovedEntry(t *testing.T) {
	a := demoServer(t, "a")
	a.Source = config.Source{Provider: "switchboard", Path: "mcp.json", Level: config.LevelUser, Line: 3}
	bad := config.ServerConfig{Name: "bad", Command: "x", Source: a.Source}
	bad.Source.Line = 4
	bad.Err = &config.Diagnostic{Path: "mcp.json", Line: 4, Column: 9, Server: "bad", Message: "variable X is not set"}
	h := start(t, nil, a, bad)
	before := status(t, h, "a")

	moved, movedBad := a, bad
	moved.Source.Line = 7
	movedBad.Source.Line = 8
	movedBad.Err = &config.Diagnostic{Path: "mcp.json", Line: 8, Column: 9, Server: "bad", Message: "variable X is not set"}
	diff, err := h.Reload(context.Background(), []config.ServerConfig{moved, movedBad})
	if err != nil {
		t.Fatal(err)
	}
	if st := status(t, h, "bad"); st.State != host.StateFailed || !strings.HasPrefix(st.Error, "mcp.json:8:9:") {
		t.Errorf("bad after the reload: %s %q, want failed at mcp.json:8:9", st.State, st.Error)
	}
	if want := (config.Diff{Moved: []string{"a", "bad"}}); !cmp.Equal(want, diff) || !diff.Empty() {
		t.Errorf("diff = %+v, want %+v, empty", diff, want)
	}
	after := status(t, h, "a")
	if after.Source.Line != 7 {
		t.Errorf("source line %d after the reload, want 7", after.Source.Line)
	}
	if after.PID != before.PID {
		t.Errorf("a moved entry restarted its server: pid %d -> %d", before.PID, after.PID)
	}
}

// Calls made while a reload runs all return: those to an unchanged server
// succeed, and none hangs.
func TestCallsDuringReload(t *testing.T) {
	steady, moving := demoServer(t, "steady"), demoServer(t, "moving")
	h := start(t, nil, steady, moving)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 20 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := h.CallTool(context.Background(), "mcp__steady__echo", map[string]any{"text": "x"}); err != nil {
				errs <- err
			}
		}()
		go func() {
			defer wg.Done()
			// Calls to the restarting server wait for it or fail with a
			// CallError if they were on the old connection; either way they
			// return.
			_, err := h.CallTool(context.Background(), "mcp__moving__echo", map[string]any{"text": "x"})
			var cerr *host.CallError
			if err != nil && !errors.As(err, &cerr) {
				errs <- err
			}
		}()
		if i == 10 {
			moving2 := moving
			moving2.Args = append(append([]string(nil), moving.Args...), "--stderr-lines")
			if _, err := h.Reload(context.Background(), []config.ServerConfig{steady, moving2}); err != nil {
				t.Fatal(err)
			}
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, err := h.CallTool(context.Background(), "mcp__moving__echo", map[string]any{"text": "x"}); err != nil {
		t.Errorf("after reload: %v", err)
	}
}

// TestReloadKeepsToolsWhileRestarting: a server whose config changed keeps
// its tools in the set, deferred, until its new process is up, and a call
// made in between waits for it instead of failing as an unknown tool. The
// new connect attempt is held, so the gap is there every run.
func TestReloadKeepsToolsWhileRestarting(t *testing.T) {
	h := host.New(nil)
	defer h.Close()
	g := holdAttempts(h, "moving")
	hold, release, waiting := &g.hold, g.release, g.waiting
	moving := demoServer(t, "moving")
	if err := h.Start(context.Background(), []config.ServerConfig{moving}); err != nil {
		t.Fatal(err)
	}
	hold.Store(true)
	changed := moving
	changed.Args = append(append([]string(nil), moving.Args...), "--stderr-lines")
	// With tools to offer, Reload returns at the startup gate; without,
	// it would wait for the held attempt.
	reloaded := make(chan error, 1)
	go func() {
		_, err := h.Reload(context.Background(), []config.ServerConfig{changed})
		reloaded <- err
	}()
	select {
	case err := <-reloaded:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(faultBound):
		close(release)
		t.Fatal("Reload waited for the restarting server: it had no tools to offer meanwhile")
	}
	if tool, ok := toolNamed(h, "mcp__moving__echo"); !ok {
		t.Fatal("the restarting server's tool left the set")
	} else if !tool.Deferred {
		t.Error("the restarting server's tool is not deferred")
	}
	done := make(chan error, 1)
	go func() {
		_, err := h.CallTool(context.Background(), "mcp__moving__echo", map[string]any{"text": "in the gap"})
		done <- err
	}()
	select {
	case <-waiting:
	case err := <-done:
		t.Fatalf("call returned while its server was restarting: %v", err)
	case <-time.After(faultBound):
		t.Fatal("call neither waits nor returns")
	}
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("call after the restart: %v", err)
		}
	case <-time.After(faultBound):
		t.Fatal("call did not return once the server was back")
	}
}
