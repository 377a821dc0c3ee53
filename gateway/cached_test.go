package gateway_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// With a warm cache, a client of a gateway whose server is slow to start
// lists its prompts and resources at once, and a get and a read made
// before the server connected succeed once it has (issue 24). The server
// sleeps before serving while a file exists (--slow-when), so the config,
// and with it the cache entry, is the same cold and warm.
func TestCachedPromptsReachClients(t *testing.T) {
	cache := t.TempDir()
	slow := filepath.Join(t.TempDir(), "slow")
	cfg := demoServer(t, "slow", "--init-delay", "2s", "--slow-when", slow)

	warm := host.New(&host.Options{CacheDir: cache})
	if err := warm.Start(context.Background(), []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	if err := warm.WaitListed(context.Background()); err != nil {
		t.Fatal(err)
	}
	warm.Close()

	if err := os.WriteFile(slow, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h := host.New(&host.Options{CacheDir: cache, ToolPrefix: host.NoToolPrefix})
	gw := gateway.New(h, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gw.Run(ctx) }()
	srv := httptest.NewServer(gw.Handler(gateway.HTTPOptions{}))
	t.Cleanup(func() {
		cancel()
		<-done
		srv.CloseClientConnections()
		srv.Close()
		h.Close()
	})
	if err := h.Start(ctx, []config.ServerConfig{cfg}); err != nil { // at the startup gate
		t.Fatal(err)
	}
	<-gw.Synced()
	s := &served{h: h, gw: gw, url: srv.URL + gateway.Path}
	sess := s.clientAt(t, "", nil, config.ProtocolLegacy)

	prompts, err := sess.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(prompts.Prompts, func(p *mcp.Prompt) bool { return p.Name == "slow__greet" }) {
		t.Fatalf("prompts/list at the first connect: %+v, want slow__greet", prompts.Prompts)
	}
	resources, err := sess.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resources.Resources) != 1 || resources.Resources[0].URI != demo.ReadmeURI {
		t.Fatalf("resources/list at the first connect: %+v", resources.Resources)
	}
	got, err := sess.GetPrompt(ctx, &mcp.GetPromptParams{Name: "slow__greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil {
		t.Fatalf("an early prompts/get: %v", err)
	}
	if text, ok := got.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(text.Text, "Ada") {
		t.Errorf("greet: %+v", got.Messages[0].Content)
	}
	if _, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: demo.ReadmeURI}); err != nil {
		t.Errorf("an early resources/read: %v", err)
	}
}
