package host_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// A server's handshake — who it is, what it tells agents, the version it
// speaks — is in its Status and in the event that says it connected.
func TestServerIdentity(t *testing.T) {
	h := host.New(nil)
	defer h.Close()
	sub := h.Subscribe()
	defer sub.Close()
	if err := h.Start(context.Background(), []config.ServerConfig{demoServer(t, "demo")}); err != nil {
		t.Fatal(err)
	}
	e := awaitState(t, sub, "demo", host.StateConnected)
	if e.ServerInfo == nil || e.ServerInfo.Name != "demo" || !strings.Contains(e.Instructions, "demo server") || e.Protocol == "" {
		t.Errorf("connected event: %+v %q %q", e.ServerInfo, e.Instructions, e.Protocol)
	}
	st := status(t, h, "demo")
	if st.ServerInfo == nil || st.ServerInfo.Title != "switchboard demo server" || st.Instructions != e.Instructions {
		t.Errorf("status: %+v %q", st.ServerInfo, st.Instructions)
	}
}

// A call that went out and failed on the server's side (here the server
// answered with a JSON-RPC error) is a CallError that says it was sent: a
// gateway passes that on as an error, where a refusal before sending is a
// tool error.
func TestCallErrorSaysSent(t *testing.T) {
	h := start(t, nil, demoServer(t, "demo", "--test-tools"))
	ctx := context.Background()
	h.WaitSettled(ctx)
	var ce *host.CallError
	_, err := h.CallTool(ctx, "mcp__demo__refuse", map[string]any{"message": "no"})
	if !errors.As(err, &ce) || !ce.Sent {
		t.Errorf("a server's JSON-RPC error: %v; want a CallError, sent", err)
	}
}
