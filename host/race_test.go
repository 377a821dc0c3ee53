package host_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// Restarts at once, alone and during a reload, leave one process per
// server and none after Disconnect.
func TestConcurrentRestarts(t *testing.T) {
	cfg := demoServer(t, "r")
	h := start(t, nil, cfg)
	first := status(t, h, "r").PID
	sub := h.Subscribe()
	defer sub.Close()
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := h.Restart("r"); err != nil {
				t.Error(err)
			}
		}()
	}
	changed := cfg
	changed.Args = append(append([]string(nil), cfg.Args...), "--stderr-lines")
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := h.Reload(context.Background(), []config.ServerConfig{changed}); err != nil {
			t.Error(err)
		}
	}()
	wg.Wait()
	if err := h.WaitSettled(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Every process this server ever had: the first, and the others from
	// the events, all published by the time WaitSettled returns.
	pids := []int{first}
	for {
		select {
		case e := <-sub.C:
			if e.Type == host.EventState && e.PID != 0 {
				pids = append(pids, e.PID)
			}
			continue
		default:
		}
		break
	}
	st := status(t, h, "r")
	if st.State != host.StateConnected {
		t.Fatalf("after the restarts: %+v", st)
	}
	// Without these the checks below could pass having looked at nothing:
	// the restarts were seen, and the current process is among them.
	if len(pids) < 2 || !slices.Contains(pids, st.PID) || st.PID == first {
		t.Fatalf("processes seen: first %d, then %v; current %d", first, pids[1:], st.PID)
	}
	for _, pid := range pids {
		if pid != st.PID && alive(pid) {
			t.Errorf("process %d left running beside the current %d", pid, st.PID)
		}
	}
	if err := h.Disconnect("r"); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d survived Disconnect", pid)
		}
	}
}

// Calls made while a server restarts wait for it instead of failing.
func TestCallsDuringRestart(t *testing.T) {
	h := start(t, nil, demoServer(t, "r"))
	sub := h.Subscribe()
	defer sub.Close()
	restarted := make(chan error, 1)
	go func() { restarted <- h.Restart("r") }()
	// Restart shows connecting before it stops the old connection: calls
	// from here on must wait for the new one.
	awaitState(t, sub, "r", host.StateConnecting)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := h.CallTool(context.Background(), "mcp__r__echo", map[string]any{"text": "x"}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("call during restart: %v", err)
	}
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
}
