package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
)

// stalledClient opens a legacy session on the gateway at url, sets its log
// level to debug and opens its stream of server messages, which it then
// never reads: a client that stopped reading.
func stalledClient(t *testing.T, url string) {
	t.Helper()
	post := func(session string, body any) string {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", config.ProtocolLegacy)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("%v: %s", body, resp.Status)
		}
		return resp.Header.Get("Mcp-Session-Id")
	}
	id := post("", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": config.ProtocolLegacy, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "stalled", "version": "1"}}})
	post(id, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	post(id, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": map[string]any{"level": "debug"}})
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", config.ProtocolLegacy)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		resp.Body.Close() // never read
		// The session is this client's to end, as any client's.
		req, _ := http.NewRequest(http.MethodDelete, url, nil)
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", config.ProtocolLegacy)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
}

// One client that stops reading stalls no one: its log notifications
// queue up to a bound and it is dropped, while another client still gets
// a newly configured server's tools. Before, the gateway's event loop
// blocked on the stalled client's stream and the other client never saw
// the new server.
func TestStalledClientStallsNoOne(t *testing.T) {
	loud := demoServer(t, "loud", "--reply-tools")
	s := serve(t, gateway.HTTPOptions{}, loud)
	stalledClient(t, s.url)
	ctx := context.Background()
	changed := make(chan struct{}, 1)
	other := s.client(t, "", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	// Enough log lines to fill any socket's buffers many times over.
	for i := range 3000 {
		if _, err := s.h.CallTool(ctx, "loud__big_log", map[string]any{"bytes": 8 << 10}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if _, err := s.h.Reload(ctx, []config.ServerConfig{loud, demoServer(t, "late")}); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(60 * time.Second) // a stalled loop never gets there
	for {
		select {
		case <-changed:
		case <-time.After(time.Second):
		case <-deadline:
			t.Fatal(fmt.Sprintf("the other client never got the new server's tools: %v", toolNames(t, other)))
		}
		if slices.Contains(toolNames(t, other), "late__echo") {
			return
		}
	}
}
