package edit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/config/source"
)

const exe = "/opt/switchboard/bin/switchboard"

// fixture copies an app's sample config (testdata/clients, each in the
// app's real shape, with comments where its format allows) into a temp
// folder.
func fixture(t *testing.T, c *Client) (path string, orig []byte) {
	t.Helper()
	name := c.ID + ".json"
	if c.toml {
		name = c.ID + ".toml"
	}
	orig, err := os.ReadFile(filepath.Join("testdata", "clients", name))
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, orig
}

func entryNamed(t *testing.T, c *Client, path, name string) *source.Entry {
	t.Helper()
	entries, err := c.Entries(path, source.Env{})
	if err != nil {
		t.Fatalf("%s no longer reads as %s reads it: %v", path, c.Name, err)
	}
	for i := range entries {
		if entries[i].Config.Name == name {
			return &entries[i]
		}
	}
	return nil
}

// Connecting writes an entry the app reads as running switchboard serve,
// a second connect changes nothing, and disconnecting gives back the file
// byte for byte, for every app.
func TestConnectDisconnectRoundTrip(t *testing.T) {
	for _, c := range AllClients() {
		t.Run(c.ID, func(t *testing.T) {
			path, orig := fixture(t, c)
			before, err := c.Entries(path, source.Env{})
			// Zed's sample has none: its settings grow a context_servers
			// object, which goes again with the last server.
			if err != nil || len(before) == 0 && c.ID != "zed" {
				t.Fatalf("fixture: %d entries, %v", len(before), err)
			}
			changed, err := c.Connect(path, "switchboard", exe, []string{"serve"})
			if err != nil || !changed {
				t.Fatalf("Connect = %v, %v; want changed", changed, err)
			}
			e := entryNamed(t, c, path, "switchboard")
			if e == nil || e.Config.Command != exe || !cmp.Equal(e.Config.Args, []string{"serve"}) || e.Config.Err != nil {
				t.Fatalf("entry read back: %+v", e)
			}
			after, _ := c.Entries(path, source.Env{})
			if len(after) != len(before)+1 {
				t.Errorf("entries: %d before, %d after; want one more", len(before), len(after))
			}
			connected, _ := os.ReadFile(path)
			if !strings.Contains(string(connected), firstComment(orig)) {
				t.Errorf("a comment was lost:\n%s", connected)
			}

			changed, err = c.Connect(path, "switchboard", exe, []string{"serve"})
			if err != nil || changed {
				t.Fatalf("second Connect = %v, %v; want unchanged", changed, err)
			}
			again, _ := os.ReadFile(path)
			if string(again) != string(connected) {
				t.Errorf("a second connect changed the file:\n%s", cmp.Diff(string(connected), string(again)))
			}

			changed, err = c.Disconnect(path, "switchboard")
			if err != nil || !changed {
				t.Fatalf("Disconnect = %v, %v; want changed", changed, err)
			}
			got, _ := os.ReadFile(path)
			if diff := cmp.Diff(string(orig), string(got)); diff != "" {
				t.Errorf("connect then disconnect did not restore the file (-want +got):\n%s", diff)
			}
			if changed, err := c.Disconnect(path, "switchboard"); err != nil || changed {
				t.Errorf("second Disconnect = %v, %v; want unchanged", changed, err)
			}
		})
	}
}

// firstComment is the file's first comment line, or "".
func firstComment(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "//") || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "/*") {
			return l
		}
	}
	return ""
}

// A connect to an app with no file yet creates it, and its folder, private,
// in the smallest shape the app reads; a new path that moved (the entry
// pointing at another binary) is rewritten in place.
func TestConnectCreates(t *testing.T) {
	for _, c := range AllClients() {
		t.Run(c.ID, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "app")
			path := filepath.Join(dir, "config")
			if _, err := c.Connect(path, "switchboard", exe, []string{"serve"}); err != nil {
				t.Fatal(err)
			}
			for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
				if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
					t.Errorf("%s: %v, %v; want mode %v", p, fi.Mode(), err, want)
				}
			}
			if e := entryNamed(t, c, path, "switchboard"); e == nil || e.Config.Command != exe {
				t.Fatalf("entry read back: %+v", e)
			}
			changed, err := c.Connect(path, "switchboard", "/usr/bin/switchboard", []string{"serve"})
			if err != nil || !changed {
				t.Fatalf("Connect with a new path = %v, %v", changed, err)
			}
			entries, _ := c.Entries(path, source.Env{})
			if len(entries) != 1 || entries[0].Config.Command != "/usr/bin/switchboard" {
				t.Errorf("after moving: %+v", entries)
			}
		})
	}
}

// A file the app could not read is never written, and the error names it.
func TestConnectRefusesBrokenFile(t *testing.T) {
	for _, c := range AllClients() {
		t.Run(c.ID, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "broken")
			broken := []byte("{\"mcpServers\": {\n[[[ not\n")
			if err := os.WriteFile(path, broken, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := c.Connect(path, "switchboard", exe, []string{"serve"})
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("Connect = %v; want an error naming %s", err, path)
			}
			if got, _ := os.ReadFile(path); string(got) != string(broken) {
				t.Errorf("the broken file was written:\n%s", got)
			}
		})
	}
}

// An app's own switch turns one of its servers off as the app reads it,
// and on again gives back the file byte for byte; an app without one says
// so.
func TestSetDisabled(t *testing.T) {
	other := map[string]string{"windsurf": "brave-search", "codex": "context7", "opencode": "sentry", "zed": "mine", "gemini": "pythonTools"}
	for _, c := range AllClients() {
		t.Run(c.ID, func(t *testing.T) {
			path, orig := fixture(t, c)
			name := other[c.ID]
			if !c.HasSwitch() {
				if name != "" {
					t.Fatalf("%s has no switch", c.ID)
				}
				if err := c.SetDisabled(path, "x", true); err == nil {
					t.Fatal("SetDisabled without a switch did not fail")
				}
				return
			}
			if c.ID == "zed" {
				// Zed's sample has no servers: give it one.
				if _, err := c.Connect(path, name, "/usr/bin/mine", nil); err != nil {
					t.Fatal(err)
				}
				orig, _ = os.ReadFile(path)
			}
			if err := c.SetDisabled(path, name, true); err != nil {
				t.Fatal(err)
			}
			if e := entryNamed(t, c, path, name); e == nil || !e.Config.Disabled {
				t.Fatalf("after disabling: %+v", e)
			}
			if err := c.SetDisabled(path, name, false); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if diff := cmp.Diff(string(orig), string(got)); diff != "" {
				t.Errorf("disable then enable did not restore the file (-want +got):\n%s", diff)
			}
		})
	}
}

// Each app's file is where discovery reads it, per platform.
func TestClientPaths(t *testing.T) {
	home := t.TempDir()
	lookup := func(string) (string, bool) { return "", false }
	for _, tc := range []struct{ id, goos, want string }{
		{"claude-desktop", "darwin", "Library/Application Support/Claude/claude_desktop_config.json"},
		{"claude-desktop", "linux", ".config/Claude/claude_desktop_config.json"},
		{"claude-code", "linux", ".claude.json"},
		{"cursor", "linux", ".cursor/mcp.json"},
		{"vscode", "darwin", "Library/Application Support/Code/User/mcp.json"},
		{"vscode", "linux", ".config/Code/User/mcp.json"},
		{"windsurf", "linux", ".codeium/windsurf/mcp_config.json"},
		{"codex", "linux", ".codex/config.toml"},
		{"gemini", "linux", ".gemini/settings.json"},
		{"zed", "linux", ".config/zed/settings.json"},
		{"opencode", "linux", ".config/opencode/opencode.json"},
	} {
		got := ClientByID(tc.id).Path(source.Env{Home: home, GOOS: tc.goos, Lookup: lookup})
		if want := filepath.Join(home, tc.want); got != want {
			t.Errorf("%s on %s: %s, want %s", tc.id, tc.goos, got, want)
		}
	}
	// An opencode.jsonc that exists is the one edited.
	existing := filepath.Join(home, ".config", "opencode", "opencode.jsonc")
	if err := os.MkdirAll(filepath.Dir(existing), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(existing, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ClientByID("opencode").Path(source.Env{Home: home, Lookup: lookup}); got != existing {
		t.Errorf("opencode with opencode.jsonc: %s", got)
	}
}

// A config that is a link (a dotfiles repository) stays a link, its
// target edited, and an existing file keeps its mode.
func TestConnectFollowsLinksKeepsMode(t *testing.T) {
	for _, c := range []*Client{ClientByID("cursor"), ClientByID("codex")} {
		t.Run(c.ID, func(t *testing.T) {
			target, orig := fixture(t, c)
			if err := os.Chmod(target, 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(t.TempDir(), "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Connect(link, "switchboard", exe, []string{"serve"}); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the link was replaced: %v, %v", fi.Mode(), err)
			}
			if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o644 {
				t.Errorf("mode %v, want 0644 kept", fi.Mode().Perm())
			}
			if e := entryNamed(t, c, target, "switchboard"); e == nil {
				t.Fatal("the target has no entry")
			}
			if _, err := c.Disconnect(link, "switchboard"); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(target); string(got) != string(orig) {
				t.Errorf("not restored:\n%s", got)
			}
		})
	}
}

// Gemini CLI's version 1 list, excludeMCPServers, is the one edited where
// only it is there; a Codex table at the end of a file without a final
// line break comes and goes without one.
func TestSwitchEdgeShapes(t *testing.T) {
	dir := t.TempDir()
	gemini := ClientByID("gemini")
	path := filepath.Join(dir, "settings.json")
	orig := `{"excludeMCPServers": ["old"], "mcpServers": {"a": {"command": "a"}}}`
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := gemini.SetDisabled(path, "a", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !strings.Contains(string(got), `"excludeMCPServers": ["old", "a"]`) {
		t.Errorf("after disabling:\n%s", got)
	}
	if err := gemini.SetDisabled(path, "a", false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != orig {
		t.Errorf("not restored:\n%s", got)
	}

	codex := ClientByID("codex")
	path = filepath.Join(dir, "config.toml")
	orig = "model = \"o3\"\n\n[mcp_servers.a]\ncommand = \"a\""
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() error{
		func() error { return codex.SetDisabled(path, "a", true) },
		func() error { return codex.SetDisabled(path, "a", false) },
		func() error { _, err := codex.Connect(path, "switchboard", exe, []string{"serve"}); return err },
		func() error { _, err := codex.Disconnect(path, "switchboard"); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != orig {
		t.Errorf("not restored: %q", got)
	}
	// An inline table is the person's to edit.
	if err := os.WriteFile(path, []byte("[mcp_servers]\nswitchboard = {command = \"x\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := codex.Connect(path, "switchboard", exe, []string{"serve"}); err == nil || !strings.Contains(err.Error(), "edit it by hand") {
		t.Errorf("Connect over an inline table = %v", err)
	}
}

// FuzzCodexRoundTrip: whatever config.toml Codex reads, connecting either
// fails and leaves it alone, or gives a file with the entry that
// disconnecting turns back into the same bytes; other servers never change.
func FuzzCodexRoundTrip(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "clients", "codex.toml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte("model = \"o3\""))
	f.Add([]byte("a = 1\r\n[mcp_servers.x]\r\ncommand = \"x\"\r\n"))
	f.Add([]byte("s = \"\"\"\n[mcp_servers.switchboard]\n\"\"\"\n"))
	f.Add([]byte("[mcp_servers]\nx = {command = \"x\"}\n# end"))
	codex := ClientByID("codex")
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		before, err := codex.Entries(path, source.Env{})
		if err != nil || entryIn(before, "switchboard") {
			return
		}
		if _, err := codex.Connect(path, "switchboard", exe, []string{"serve"}); err != nil {
			if got, _ := os.ReadFile(path); string(got) != string(data) {
				t.Fatalf("a failed connect changed the file: %v", err)
			}
			return
		}
		after, err := codex.Entries(path, source.Env{})
		if err != nil || !entryIn(after, "switchboard") || len(after) != len(before)+1 {
			t.Fatalf("after connect: %d entries, %v", len(after), err)
		}
		if _, err := codex.Disconnect(path, "switchboard"); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != string(data) {
			t.Fatalf("not restored:\n%q\nwant\n%q", got, data)
		}
	})
}

func entryIn(entries []source.Entry, name string) bool {
	for _, e := range entries {
		if e.Config.Name == name {
			return true
		}
	}
	return false
}

// The shapes an app writes before it has servers come back as they were:
// an empty object of servers, on one line or several; in a settings file
// (Zed's), no object at all.
func TestConnectEmptyShapes(t *testing.T) {
	for _, tc := range []struct{ app, orig string }{
		{"claude-desktop", "{\n  \"mcpServers\": {}\n}\n"},
		{"cursor", `{"mcpServers": {}}`},
		{"vscode", "{\n\t\"servers\": {},\n\t\"inputs\": []\n}\n"},
		{"zed", "// Zed settings\n{\n  \"theme\": \"One Dark\"\n}\n"},
		{"gemini", "{}"},
		{"codex", ""},
	} {
		t.Run(tc.app, func(t *testing.T) {
			c := ClientByID(tc.app)
			path := filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(path, []byte(tc.orig), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Connect(path, "switchboard", exe, []string{"serve"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Disconnect(path, "switchboard"); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); string(got) != tc.orig {
				t.Errorf("got %q, want %q", got, tc.orig)
			}
		})
	}
}

// FuzzCursorRoundTrip: whatever mcp.json Cursor reads, connecting either
// fails and leaves it alone, or adds one entry, the others unchanged, and
// disconnecting gives back a file Cursor reads as it read the first (byte
// for byte when the servers object had a server already).
func FuzzCursorRoundTrip(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "clients", "cursor.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"mcpServers": {"a": {"command": "a"}}}`))
	f.Add([]byte("// c\n{\r\n\t\"mcpServers\": {\"a\": {\"url\": \"https://x\"},}, // t\r\n}"))
	f.Add([]byte(`{"mcpServers": null, "x": [1, {"y": 2}]}`))
	cursor := ClientByID("cursor")
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "mcp.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		before, err := cursor.Entries(path, source.Env{})
		if err != nil || entryIn(before, "switchboard") {
			return
		}
		if _, err := cursor.Connect(path, "switchboard", exe, []string{"serve"}); err != nil {
			if got, _ := os.ReadFile(path); string(got) != string(data) {
				t.Fatalf("a failed connect changed the file: %v", err)
			}
			return
		}
		after, err := cursor.Entries(path, source.Env{})
		if err != nil || !entryIn(after, "switchboard") || len(after) != len(before)+1 {
			t.Fatalf("after connect: %d entries, %v", len(after), err)
		}
		if !sameOthers(before, after, "switchboard") {
			t.Fatal("connect changed another server")
		}
		if _, err := cursor.Disconnect(path, "switchboard"); err != nil {
			t.Fatal(err)
		}
		again, err := cursor.Entries(path, source.Env{})
		if err != nil || len(again) != len(before) || !sameOthers(before, again, "switchboard") {
			t.Fatalf("after disconnect: %d entries, %v", len(again), err)
		}
		if got, _ := os.ReadFile(path); len(before) > 0 && string(got) != string(data) {
			t.Fatalf("not restored:\n%q\nwant\n%q", got, data)
		}
	})
}
