package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/edit"
)

// watchEvent is one line of watch --json, host and watcher events alike.
type watchEvent struct {
	Type, Server, State, Error, File string
	PID                              *int
	Diff                             *config.Diff
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

// TestWatchSaysWhatHappened: watch has a line for every server, from the
// start, that a config change touched, and for a broken file that is
// fixed: a server failed at config time (an unset variable) and one
// disabled from the start are reported when watch starts; a file fixed by
// saving it whole again, which changes no server, says it is fixed; a
// server the config disables is disabled, not restarted, and one it
// enables again is enabled.
func TestWatchSaysWhatHappened(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "mcp.json")
	doc := func(goodDisabled bool) string {
		return `{"mcpServers": {
			"good": {"command": "` + exe + `", "args": ["demo-server"], "env": {"` + asCLI + `": "1"}, "disabled": ` + fmt.Sprint(goodDisabled) + `},
			"unset": {"command": "` + exe + `", "args": ["demo-server"], "env": {"TOKEN": "${WATCH_TEST_NOT_SET}"}},
			"off": {"command": "` + exe + `", "args": ["demo-server", "--name", "off"], "disabled": true}}}`
	}
	writeFile(t, cfg, doc(false))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	// An atomic save: written in place, the file would be empty for a
	// moment, which reads as no servers at all.
	save := func(data string) {
		writeFile(t, cfg+".tmp", data)
		if err := os.Rename(cfg+".tmp", cfg); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("json", func(t *testing.T) {
		save(doc(false))
		sc, stop := startWatch(t, cfg)
		defer stop()
		next := func(what string, match func(watchEvent) bool) watchEvent {
			t.Helper()
			return nextEvent(t, sc, what, match)
		}
		seen := map[string]watchEvent{}
		next("every server's state", func(e watchEvent) bool {
			if e.Type == "state" && e.State != "connecting" {
				seen[e.Server] = e
			}
			return len(seen) == 3
		})
		if e := seen["unset"]; e.State != "failed" || !strings.Contains(e.Error, "WATCH_TEST_NOT_SET is not set") {
			t.Errorf("unset: %+v, want failed, naming the variable", e)
		}
		if e := seen["off"]; e.State != "disabled" {
			t.Errorf("off: %+v, want disabled", e)
		}

		save(doc(false)[:40])
		next("the config error", func(e watchEvent) bool { return e.Type == "config-error" })
		save(doc(false))
		if e := next("the fix", func(e watchEvent) bool { return e.Type == "config-fixed" || e.Type == "reload" }); e.Type != "config-fixed" || e.File != cfg {
			t.Errorf("after the fix: %+v, want config-fixed naming %s", e, cfg)
		}

		save(doc(true))
		next("good disabled", func(e watchEvent) bool { return e.Type == "state" && e.Server == "good" && e.State == "disabled" })
	})

	t.Run("text", func(t *testing.T) {
		save(doc(false))
		sc, stop := startWatchArgs(t, "--config", cfg, "watch")
		defer stop()
		var out []string
		await := func(what string, match func(string) bool) string {
			t.Helper()
			for sc.Scan() {
				out = append(out, sc.Text())
				if match(sc.Text()) {
					return sc.Text()
				}
			}
			t.Fatalf("watch output ended waiting for %s:\n%s", what, strings.Join(out, "\n"))
			return ""
		}
		has := func(subs ...string) func(string) bool {
			return func(line string) bool {
				for _, s := range subs {
					if !strings.Contains(line, s) {
						return false
					}
				}
				return true
			}
		}
		start := map[string]func(string) bool{
			"unset failed":   has(" unset ", "failed", "WATCH_TEST_NOT_SET is not set"),
			"off disabled":   has(" off ", "disabled"),
			"good connected": has(" good ", "connected"),
		}
		await("every server's state", func(line string) bool {
			for what, match := range start {
				if match(line) {
					delete(start, what)
				}
			}
			return len(start) == 0
		})

		save("{")
		await("the config error", has("config error: "+cfg+":"))
		save(doc(false))
		await("the fix", has("config fixed: "+cfg))

		save(doc(true))
		if line := await("the reload", has("config reloaded:")); !strings.Contains(line, "config reloaded: disabled good") || strings.Contains(line, "restarted") {
			t.Errorf("disabling good: %q, want 'config reloaded: disabled good', nothing restarted", line)
		}
		save(doc(false))
		if line := await("the reload", has("config reloaded:")); !strings.Contains(line, "config reloaded: enabled good") {
			t.Errorf("enabling good: %q, want 'config reloaded: enabled good'", line)
		}

		// good's entry grows by a line, which moves the entries below it:
		// they are not updated, and the reload speaks of good alone.
		grown := strings.Replace(doc(false), `"args": ["demo-server"], "env"`, `"args": ["demo-server", "--stderr-lines"],`+"\n\t\t\t\t"+`"env"`, 1)
		save(grown)
		if line := await("the reload", has("config reloaded:")); !strings.HasSuffix(line, "config reloaded: restarted good") {
			t.Errorf("growing good's entry: %q, want 'config reloaded: restarted good' and nothing more", line)
		}
	})
}
