package edit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/source"
)

func readServers(t *testing.T, path string) []config.ServerConfig {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	servers, _, err := source.ParseNative(path, data, config.LevelUser, func(string) (string, bool) { return "", true })
	if err != nil {
		t.Fatal(err)
	}
	return servers
}

func names(servers []config.ServerConfig) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.Name)
	}
	return out
}

func TestEditLifecycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard", "mcp.json")
	if err := AddServer(path, "b", EntryFields{Command: "srv", Args: []string{"--x"}, Env: map[string]string{"K": "v"}}); err != nil {
		t.Fatal(err)
	}
	if err := AddServer(path, "a", EntryFields{URL: "https://example.com/mcp", Type: config.TransportSSE, Headers: map[string]string{"X": "1"}}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode: %v %v", fi.Mode(), err)
	}
	// New entries go at the end: the file's order is kept, not sorted.
	if diff := cmp.Diff([]string{"b", "a"}, names(readServers(t, path))); diff != "" {
		t.Error(diff)
	}
	if err := AddServer(path, "a", EntryFields{Command: "x"}); !errors.Is(err, ErrServerExists) {
		t.Errorf("adding an existing name: %v", err)
	}
	if err := SetDisabled(path, "b", true); err != nil {
		t.Fatal(err)
	}
	if s := readServers(t, path)[0]; !s.Disabled || s.Command != "srv" || s.Env["K"] != "v" {
		t.Errorf("after disable: %+v", s)
	}
	if err := SetDisabled(path, "b", false); err != nil {
		t.Fatal(err)
	}
	if s := readServers(t, path)[0]; s.Disabled {
		t.Errorf("after enable: %+v", s)
	}
	if err := SetAutoApprove(path, "b", "echo", true); err != nil {
		t.Fatal(err)
	}
	if s := readServers(t, path)[0]; !cmp.Equal(s.AutoApprove, []string{"echo"}) {
		t.Errorf("autoApprove = %q", s.AutoApprove)
	}
	if err := RemoveServer(path, "b"); err != nil {
		t.Fatal(err)
	}
	if err := RemoveServer(path, "b"); !errors.Is(err, ErrNoServer) {
		t.Errorf("removing twice: %v", err)
	}
	if diff := cmp.Diff([]string{"a"}, names(readServers(t, path))); diff != "" {
		t.Error(diff)
	}
	if err := AddServer(path, "c", EntryFields{Command: "x", URL: "http://y"}); err == nil {
		t.Error("an entry with both command and url was added")
	}
}

// Fields the editor does not know survive an edit, in their order.
func TestEditKeepsUnknownFieldsAndOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	orig := `{
  "$schema": "https://example.com/schema.json",
  "mcpServers": {
    "z": {"command": "z", "x-note": "keep me", "timeout": "5s"},
    "y": {"command": "y"}
  },
  "other": [1, 2]
}
`
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetDisabled(path, "y", true); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	got := string(data)
	for _, want := range []string{`"$schema"`, `"x-note": "keep me"`, `"other": [`, `"disabled": true`} {
		if !strings.Contains(got, want) {
			t.Errorf("edited file lost %s:\n%s", want, got)
		}
	}
	if strings.Index(got, `"$schema"`) > strings.Index(got, `"mcpServers"`) || strings.Index(got, `"z"`) > strings.Index(got, `"y"`) {
		t.Errorf("order changed:\n%s", got)
	}
}

// A file that does not parse is not rewritten: the person's text stays.
func TestEditRefusesBrokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	broken := "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n"
	os.WriteFile(path, []byte(broken), 0o600)
	err := AddServer(path, "b", EntryFields{Command: "y"})
	var d *config.Diagnostic
	if !errors.As(err, &d) || d.Line == 0 {
		t.Errorf("err = %v, want a positioned diagnostic", err)
	}
	if data, _ := os.ReadFile(path); string(data) != broken {
		t.Error("a broken file was rewritten")
	}
}

// Concurrent edits do not lose each other's change.
func TestEditConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := AddServer(path, string(rune('a'+i)), EntryFields{Command: "x"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := len(readServers(t, path)); n != 10 {
		t.Errorf("%d servers after 10 concurrent adds", n)
	}
}

// A claim-only entry is valid and disabled: it turns off a server of the
// same name defined elsewhere.
func TestClaimDisabled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := AddServer(path, "mine", EntryFields{Command: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := ClaimDisabled(path, "theirs"); err != nil {
		t.Fatal(err)
	}
	if err := ClaimDisabled(path, "mine"); !errors.Is(err, ErrServerExists) {
		t.Errorf("claiming an existing name: %v", err)
	}
	servers := readServers(t, path)
	if len(servers) != 2 || servers[1].Name != "theirs" || !servers[1].Disabled || servers[1].Err != nil {
		t.Fatalf("servers = %+v", servers)
	}
	for name, want := range map[string]bool{"theirs": true, "mine": false, "absent": false} {
		if got, err := IsClaim(path, name); err != nil || got != want {
			t.Errorf("IsClaim(%s) = %v, %v; want %v", name, got, err, want)
		}
	}
	// Enabled, the same entry is an error: it does not say what to run.
	if err := config.Validate(&config.ServerConfig{Name: "theirs"}); err == nil {
		t.Error("an enabled entry with neither command nor url validated")
	}
}

// A failed edit leaves the file as it was; a byte order mark is no obstacle.
func TestEditErrorLeavesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	orig := "\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"x\", \"autoApprove\": \"oops\"}}}\n"
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SetAutoApprove(path, "a", "echo", true); err == nil {
		t.Fatal("an autoApprove that is not a list was edited")
	}
	data, _ := os.ReadFile(path)
	if string(data) != orig {
		t.Errorf("a failed edit rewrote the file:\n%s", data)
	}
	if err := SetDisabled(path, "a", true); err != nil {
		t.Errorf("editing a file with a byte order mark: %v", err)
	}
}
