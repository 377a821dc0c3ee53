package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/edit"
)

// watchEvent is one line of watch --json, host and watcher events alike.
type watchEvent struct {
	Type, Server, State, Error string
	PID                        *int
	Diff                       *config.Diff
}

// TestWatchReloadsEdits: a person edits the config while watch runs. Each
// save restarts exactly the servers it touched; a broken save is reported
// with its position and changes nothing; the fix reloads; an edit made
// with 'switchboard add' is picked up once.
func TestWatchReloadsEdits(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "mcp.json")
	server := func(name string, extra ...string) string {
		args := `"demo-server", "--name", "` + name + `"`
		for _, a := range extra {
			args += `, "` + a + `"`
		}
		return `"` + name + `": {"command": "` + exe + `", "args": [` + args + `], "env": {"` + asCLI + `": "1"}}`
	}
	doc := func(servers ...string) string {
		return "{\n  \"mcpServers\": {\n    " + strings.Join(servers, ",\n    ") + "\n  }\n}\n"
	}
	// saveRename is an editor's atomic save; saveInPlace truncates and writes.
	saveRename := func(data string) {
		tmp := cfg + ".tmp"
		writeFile(t, tmp, data)
		if err := os.Rename(tmp, cfg); err != nil {
			t.Fatal(err)
		}
	}
	saveInPlace := func(data string) { writeFile(t, cfg, data) }
	writeFile(t, cfg, doc(server("steady"), server("moving")))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))

	sc, stop := startWatch(t, cfg)
	defer stop()

	pids := map[string]int{}
	// next reads events until match, recording pids and failing on any
	// restart of a server the test did not touch.
	var touched map[string]bool
	next := func(what string, match func(watchEvent) bool) watchEvent {
		t.Helper()
		return nextEvent(t, sc, what, func(e watchEvent) bool {
			if e.Type == "state" && e.State == "connected" && e.PID != nil {
				if old, ok := pids[e.Server]; ok && old != *e.PID && !touched[e.Server] {
					t.Errorf("%s restarted (pid %d -> %d) though its config did not change", e.Server, old, *e.PID)
				}
				pids[e.Server] = *e.PID
			}
			return match(e)
		})
	}
	connected := func(name string) func(watchEvent) bool {
		return func(e watchEvent) bool { return e.Type == "state" && e.Server == name && e.State == "connected" }
	}
	reload := func(what string) config.Diff {
		t.Helper()
		e := next(what, func(e watchEvent) bool { return e.Type == "reload" || e.Type == "config-error" })
		if e.Type != "reload" || e.Diff == nil {
			t.Fatalf("%s: got %+v, want a reload", what, e)
		}
		return *e.Diff
	}
	names := func(ns []string) string { return strings.Join(ns, ",") }
	// awaitUp waits for a server to connect, which may already have been
	// reported: a reload returns after its new servers settle. Callers
	// clear the server's pid before the edit.
	awaitUp := func(name string) int {
		t.Helper()
		if pids[name] == 0 {
			next(name+" connected", connected(name))
		}
		return pids[name]
	}

	up := map[string]bool{}
	next("both connected", func(e watchEvent) bool {
		if e.Type == "state" && e.State == "connected" {
			up[e.Server] = true
		}
		return up["steady"] && up["moving"]
	})

	// 1. Add a server with an atomic save.
	touched = map[string]bool{"added": true}
	saveRename(doc(server("steady"), server("moving"), server("added")))
	if d := reload("add"); names(d.Added) != "added" || len(d.Changed)+len(d.Removed) != 0 {
		t.Errorf("add: diff %+v", d)
	}
	awaitUp("added")

	// 2. Change one server's args, written in place.
	touched = map[string]bool{"moving": true}
	oldMoving := pids["moving"]
	delete(pids, "moving")
	saveInPlace(doc(server("steady"), server("moving", "--stderr-lines"), server("added")))
	if d := reload("change"); names(d.Changed) != "moving" || len(d.Added)+len(d.Removed) != 0 {
		t.Errorf("change: diff %+v", d)
	}
	if awaitUp("moving") == oldMoving {
		t.Error("changed server kept its process")
	}

	// 3. A half-written file: reported with its position, nothing stops.
	touched = map[string]bool{}
	saveInPlace(doc(server("steady"), server("moving", "--stderr-lines"), server("added"))[:60])
	e := next("config error", func(e watchEvent) bool { return e.Type == "config-error" || e.Type == "reload" })
	if e.Type != "config-error" || !strings.Contains(e.Error, cfg+":") {
		t.Fatalf("broken save: %+v, want a config-error naming %s:line:column", e, cfg)
	}

	// 4. Fixed, with a server removed: the fix reloads.
	saveRename(doc(server("steady"), server("moving", "--stderr-lines")))
	if d := reload("fix"); names(d.Removed) != "added" || len(d.Added)+len(d.Changed) != 0 {
		t.Errorf("fix: diff %+v", d)
	}

	// 5. An edit by 'switchboard add' (our own writer) is picked up once.
	touched = map[string]bool{"viaadd": true}
	if err := edit.AddServer(cfg, "viaadd", edit.EntryFields{
		Command: exe, Args: []string{"demo-server"}, Env: map[string]string{asCLI: "1"},
	}); err != nil {
		t.Fatal(err)
	}
	if d := reload("switchboard add"); names(d.Added) != "viaadd" {
		t.Errorf("add via the editor: diff %+v", d)
	}
	awaitUp("viaadd")
	if pids["steady"] == 0 {
		t.Error("no pid recorded for the steady server")
	}
}
