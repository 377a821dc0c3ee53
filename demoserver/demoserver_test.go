package demoserver_test

import (
	"context"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/host"
)

func TestMain(m *testing.M) {
	if demoserver.Serving() {
		os.Exit(demoserver.Run(os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
}

// A test binary serves the demo to a host through Config, flags and all.
func TestConfig(t *testing.T) {
	cfg, err := demoserver.Config("mine", "--sampling")
	if err != nil {
		t.Fatal(err)
	}
	h := host.New(nil)
	defer h.Close()
	ctx := context.Background()
	if err := h.Start(ctx, []config.ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mcp__mine__echo", "mcp__mine__sample"} {
		if _, ok := h.Tool(name); !ok {
			t.Errorf("no tool %s", name)
		}
	}
	res, err := h.CallTool(ctx, "mcp__mine__echo", map[string]any{"text": "hi"})
	if err != nil || host.ResultText(res) != "hi" {
		t.Errorf("echo: %q %v", host.ResultText(res), err)
	}
}
