package toolcache

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

func tools() []*mcp.Tool {
	return []*mcp.Tool{{Name: "echo", Description: "Echo text.", InputSchema: map[string]any{"type": "object"}}}
}

func TestStoreLoad(t *testing.T) {
	c := Open(t.TempDir())
	if err := c.Store("demo", "abcdef0123456789ff", Entry{Tools: tools(), Protocol: "2026-07-28"}); err != nil {
		t.Fatal(err)
	}
	got, ok := c.Load("demo", "abcdef0123456789ff")
	if !ok {
		t.Fatal("Load: no entry after Store")
	}
	if diff := cmp.Diff([]string{"echo"}, []string{got.Tools[0].Name}); diff != "" {
		t.Error(diff)
	}
	if got.Protocol != "2026-07-28" {
		t.Errorf("protocol %q, want the one stored", got.Protocol)
	}
	if _, ok := c.Load("demo", "abcdef0123456789aa"); ok {
		t.Error("Load with another fingerprint found an entry")
	}
	if _, ok := c.Load("other", "abcdef0123456789ff"); ok {
		t.Error("Load of another server found an entry")
	}
}

func TestExpiredAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	c := Open(dir)
	now := time.Now()
	c.now = func() time.Time { return now }
	fp := "00112233445566778899"
	if err := c.Store("s", fp, Entry{Tools: tools()}); err != nil {
		t.Fatal(err)
	}
	c.now = func() time.Time { return now.Add(MaxAge + time.Hour) }
	if _, ok := c.Load("s", fp); ok {
		t.Error("expired entry was loaded")
	}
	c.now = time.Now
	if err := os.WriteFile(c.path("s", fp), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Load("s", fp); ok {
		t.Error("corrupt entry was loaded")
	}
	if err := c.Store("s", fp, Entry{Tools: tools()}); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Load("s", fp); !ok {
		t.Error("rewritten entry was not loaded")
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "tools"))
	if len(entries) != 1 {
		t.Errorf("cache dir holds %d files, want 1 (no temp files left)", len(entries))
	}
}

func TestNilCache(t *testing.T) {
	var c *Cache
	if err := c.Store("s", "0123456789abcdef", Entry{Tools: tools()}); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Load("s", "0123456789abcdef"); ok {
		t.Error("nil cache returned an entry")
	}
}

func TestFingerprint(t *testing.T) {
	base := config.ServerConfig{Name: "s", Command: "node", Args: []string{"a", "b"}, Env: map[string]string{"TOKEN": "x"}}
	fp := Fingerprint(&base, "/p")
	variants := map[string]func(c *config.ServerConfig){
		"args":    func(c *config.ServerConfig) { c.Args = []string{"a b"} },
		"secret":  func(c *config.ServerConfig) { c.Env = map[string]string{"TOKEN": "y"} },
		"command": func(c *config.ServerConfig) { c.Command = "deno" },
		"cwd":     func(c *config.ServerConfig) { c.Cwd = "/elsewhere" },
		"project": func(c *config.ServerConfig) { c.Source.Level = config.LevelProject },
	}
	for name, change := range variants {
		c := base
		change(&c)
		if Fingerprint(&c, "/p") == fp {
			t.Errorf("%s: changing it kept the fingerprint", name)
		}
	}
	remote := config.ServerConfig{Name: "r", URL: "https://example.com/mcp", Headers: map[string]string{"A": "1"}}
	other := remote
	other.Headers = map[string]string{"A": "2"}
	if Fingerprint(&remote, "/p") == Fingerprint(&other, "/p") {
		t.Error("header: changing it kept the fingerprint")
	}
	same := base
	same.Timeout = time.Minute // metadata, not identity
	if Fingerprint(&same, "/other") != fp {
		t.Error("a user-level server's fingerprint depends on metadata or project")
	}
}

// A list its server said goes stale (ttlMs, 2026-07-28) is marked so
// once it has.
func TestStaleListNotGiven(t *testing.T) {
	c := Open(t.TempDir())
	now := time.Now()
	c.now = func() time.Time { return now }
	fp := "0123456789abcdefff"
	if err := c.Store("s", fp, Entry{Tools: tools(), Protocol: "2026-07-28", Expires: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if e, ok := c.Load("s", fp); !ok || len(e.Tools) != 1 || e.Stale {
		t.Fatalf("fresh entry: %+v %v", e, ok)
	}
	c.now = func() time.Time { return now.Add(time.Minute) }
	e, ok := c.Load("s", fp)
	if !ok || !e.Stale || len(e.Tools) != 1 || e.Protocol != "2026-07-28" {
		t.Errorf("stale entry: %+v %v, want it marked stale", e, ok)
	}
}

// The rest of the catalog is kept beside the tools; an entry without it
// (an older one) loads with none, and one too large with it keeps the tools.
func TestExtras(t *testing.T) {
	c := Open(t.TempDir())
	const fp = "abcdef0123456789ff"
	x := &Extras{
		Resources: []*mcp.Resource{{URI: "demo://readme", Name: "readme"}},
		Prompts:   []*mcp.Prompt{{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}}},
	}
	if err := c.Store("demo", fp, Entry{Tools: tools(), Extras: x}); err != nil {
		t.Fatal(err)
	}
	got, ok := c.Load("demo", fp)
	if !ok || got.Extras == nil {
		t.Fatalf("Load: %+v %v, want the extras stored", got, ok)
	}
	if got.Extras.Resources[0].URI != "demo://readme" || got.Extras.Prompts[0].Arguments[0].Name != "who" || got.Extras.Templates == nil {
		t.Errorf("extras read back: %+v", got.Extras)
	}
	if err := c.Store("demo", fp, Entry{Tools: tools()}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Load("demo", fp); got.Extras != nil {
		t.Errorf("extras %+v after a store without them", got.Extras)
	}
	big := &Extras{Resources: []*mcp.Resource{{URI: "demo://big", Description: string(make([]byte, 3<<20))}}}
	if err := c.Store("demo", fp, Entry{Tools: tools(), Extras: big}); err != nil {
		t.Fatalf("too large with its extras: %v, want the tools stored without them", err)
	}
	if got, ok := c.Load("demo", fp); !ok || got.Extras != nil || len(got.Tools) != 1 {
		t.Errorf("too large with its extras: read back %+v %v", got, ok)
	}
}
