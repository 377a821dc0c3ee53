package host_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// Trusting the project moves the working directory discovery gives stdio
// servers from outside the project into it (DESIGN.md, "Trust"). Only what
// that changes restarts: the project's own server starts, a user-level
// server that names a path relative to where it runs restarts there, and
// the others keep their process; one without an absolute cwd runs in the
// project from its next start.
func TestTrustRestartsOnlyWhatItChanges(t *testing.T) {
	outside, project := t.TempDir(), t.TempDir()
	abs := demoServer(t, "abs")
	abs.Cwd = t.TempDir()
	plain := demoServer(t, "plain")
	rel := demoServer(t, "rel")
	rel.Env["DATA"] = "./data"
	proj := demoServer(t, "proj")
	proj.Untrusted, proj.Source.Level = true, config.LevelProject
	before := []config.ServerConfig{abs, plain, rel, proj}
	for i := range before {
		before[i].WorkDir = outside
	}
	h := start(t, nil, before...)
	if err := h.WaitSettled(context.Background()); err != nil {
		t.Fatal(err)
	}
	pids := map[string]int{}
	for _, st := range h.Status() {
		pids[st.Name] = st.PID
	}
	sub := h.Subscribe()
	defer sub.Close()

	after := make([]config.ServerConfig, len(before))
	for i, c := range before {
		c.WorkDir, c.Untrusted = project, false
		after[i] = c
	}
	diff, err := h.Reload(context.Background(), after)
	if err != nil {
		t.Fatal(err)
	}
	want := config.Diff{Changed: []string{"rel", "proj"}, Updated: []string{"plain"}, Unchanged: []string{"abs"}}
	if d := cmp.Diff(want, diff); d != "" {
		t.Errorf("diff (-want +got):\n%s", d)
	}
	states := map[string][]host.State{}
	connected := map[string]bool{}
	for !connected["rel"] || !connected["proj"] {
		e := await(t, sub, "rel and proj connected", func(e host.Event) bool { return e.Type == host.EventState })
		states[e.Server] = append(states[e.Server], e.State)
		connected[e.Server] = e.State == host.StateConnected
	}
	for _, name := range []string{"abs", "plain"} {
		if len(states[name]) > 0 {
			t.Errorf("%s changed state on trust: %v", name, states[name])
		}
	}
	now := map[string]int{}
	for _, st := range h.Status() {
		now[st.Name] = st.PID
	}
	if now["abs"] != pids["abs"] || now["plain"] != pids["plain"] {
		t.Errorf("user-level servers restarted: pids %v -> %v", pids, now)
	}
	if now["rel"] == pids["rel"] {
		t.Errorf("rel, which reads ./data, kept its process in %s", outside)
	}
	checkCwd(t, "rel", now["rel"], project)

	// plain's next start is in the project.
	if err := h.Restart("plain"); err != nil {
		t.Fatal(err)
	}
	e := await(t, sub, "plain connected again", func(e host.Event) bool {
		return e.Type == host.EventState && e.Server == "plain" && e.State == host.StateConnected
	})
	checkCwd(t, "plain", e.PID, project)
}

// checkCwd checks, where /proc tells, that process pid runs in dir.
func checkCwd(t *testing.T, name string, pid int, dir string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	got, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if got != dir {
		t.Errorf("%s runs in %s, want %s", name, got, dir)
	}
}

// Taking trust back moves every server that runs in the project out of
// it at once, whatever it depends on: it may load the project's code at
// any time, and the project may have changed (a pull made its config
// untrusted again).
func TestUntrustRestartsWhatRunsInTheProject(t *testing.T) {
	outside, project := t.TempDir(), t.TempDir()
	abs := demoServer(t, "abs")
	abs.Cwd = t.TempDir()
	plain := demoServer(t, "plain")
	trusted := []config.ServerConfig{abs, plain}
	for i := range trusted {
		trusted[i].WorkDir, trusted[i].WorkDirTrusted = project, true
	}
	h := start(t, nil, trusted...)
	if err := h.WaitSettled(context.Background()); err != nil {
		t.Fatal(err)
	}
	sub := h.Subscribe()
	defer sub.Close()
	untrusted := make([]config.ServerConfig, len(trusted))
	for i, c := range trusted {
		c.WorkDir, c.WorkDirTrusted = outside, false
		untrusted[i] = c
	}
	diff, err := h.Reload(context.Background(), untrusted)
	if err != nil {
		t.Fatal(err)
	}
	want := config.Diff{Changed: []string{"plain"}, Unchanged: []string{"abs"}}
	if d := cmp.Diff(want, diff); d != "" {
		t.Errorf("diff (-want +got):\n%s", d)
	}
	e := await(t, sub, "plain connected outside", func(e host.Event) bool {
		return e.Type == host.EventState && e.Server == "plain" && e.State == host.StateConnected
	})
	checkCwd(t, "plain", e.PID, outside)
}
