package host_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// With a warm cache, a server's prompts and resources are there from the
// start, as its tools are, marked deferred until it has listed its own;
// a get or a read made before it connects waits for it and succeeds
// (issue 24).
func TestCachedPromptsAndResourcesStandIn(t *testing.T) {
	cache := t.TempDir()
	lists := filepath.Join(t.TempDir(), "lists")
	if err := os.WriteFile(lists, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := demoServer(t, "slow", "--hold-lists", lists)

	warm := host.New(&host.Options{CacheDir: cache})
	if err := warm.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	if err := warm.WaitListed(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ps := warm.Prompts(); len(ps) != 1 || ps[0].Deferred {
		t.Fatalf("warming the cache: prompts %+v", ps)
	}
	warm.Close()

	// The next start: the server is held before it connects, then its
	// lists are held after.
	if err := os.Remove(lists); err != nil {
		t.Fatal(err)
	}
	held := heldServers{"slow": make(chan struct{})}
	waiting := make(chan string, 4)
	h := host.New(&host.Options{CacheDir: cache})
	h.SetHooks(host.Hooks{BeforeAttempt: held.hook, CallWaits: func(s string) { waiting <- s }})
	defer h.Close()
	sub := h.Subscribe()
	defer sub.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	ps := h.Prompts()
	if len(ps) != 1 || ps[0].Name != "greet" || !ps[0].Deferred || ps[0].Exposed == "" {
		t.Fatalf("prompts before the server connected: %+v, want greet from the cache, deferred", ps)
	}
	rs, _ := h.Resources()
	if len(rs) != 1 || rs[0].URI != demo.ReadmeURI || !rs[0].Deferred {
		t.Fatalf("resources before the server connected: %+v, want the readme from the cache, deferred", rs)
	}
	if server, ok := h.View(host.ViewFilter{}).ResourceServer(demo.ReadmeURI); !ok || server != "slow" {
		t.Errorf("the cached readme is routed to %q (%v)", server, ok)
	}

	got, read := make(chan error, 1), make(chan error, 1)
	go func() {
		res, err := h.GetPrompt(context.Background(), "slow", "greet", map[string]string{"name": "Ada"})
		if err == nil && (len(res.Messages) == 0 || !contains(res.Messages[0].Content, "Ada")) {
			t.Errorf("greet: %+v", res.Messages)
		}
		got <- err
	}()
	go func() {
		_, err := h.ReadResource(context.Background(), "slow", demo.ReadmeURI)
		read <- err
	}()
	<-waiting
	<-waiting
	close(held["slow"])
	if err := <-got; err != nil {
		t.Errorf("a get made before the server connected: %v", err)
	}
	if err := <-read; err != nil {
		t.Errorf("a read made before the server connected: %v", err)
	}

	// Connected, its own lists not in yet: the cache's still stand in.
	if ps := h.Prompts(); len(ps) != 1 || !ps[0].Deferred {
		t.Errorf("prompts while the server's own are held: %+v", ps)
	}
	if err := os.WriteFile(lists, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Each list is announced as it comes, and once more when all are in
	// and the server's own replace the cache's.
	for {
		await(t, sub, "the server's own prompts", func(e host.Event) bool {
			return e.Type == host.EventPrompts && e.Server == "slow"
		})
		if ps := h.Prompts(); len(ps) == 1 && !ps[0].Deferred {
			break
		}
	}
	if rs, _ := h.Resources(); len(rs) != 1 || rs[0].Deferred {
		t.Errorf("resources once listed: %+v, want the server's own", rs)
	}
}

func contains(c mcp.Content, s string) bool {
	t, ok := c.(*mcp.TextContent)
	return ok && strings.Contains(t.Text, s)
}
