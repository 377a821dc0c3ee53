package gateway_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// A server that failed to start, and one that drops, reach a client as
// log notifications of the gateway's own: error and warning, with the
// server's last stderr lines. A client is told at its start of the
// failure that came before it, once, whether or not it sets a log level
// (a client that sets none is at warning).
func TestTroublesReachClients(t *testing.T) {
	for _, setLevel := range []bool{true, false} {
		t.Run(map[bool]string{true: "level set", false: "no level set"}[setLevel], func(t *testing.T) {
			testTroublesReachClients(t, setLevel)
		})
	}
}

func testTroublesReachClients(t *testing.T, setLevel bool) {
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "bad", "--fail-start"), demoServer(t, "crashy", "--exit-after", "300ms"))
	got := make(chan *mcp.LoggingMessageParams, 64)
	sess := s.clientAt(t, "", &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			if req.Params.Logger == "switchboard" {
				got <- req.Params
			}
		},
	}, config.ProtocolLegacy)
	if setLevel {
		if err := sess.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
			t.Fatal(err)
		}
	}
	badTold := 0
	timeout := time.After(30 * time.Second)
	for dropped := false; !dropped; {
		select {
		case p := <-got:
			text, _ := p.Data.(string)
			switch {
			case strings.HasPrefix(text, `server "bad" failed: `):
				badTold++
				if p.Level != "error" || !strings.Contains(text, demo.FailStartMessage) {
					t.Errorf("bad's failure told as %s %q", p.Level, text)
				}
			case strings.HasPrefix(text, `server "crashy" dropped, reconnecting in `):
				dropped = true
				if p.Level != "warning" || !strings.Contains(text, "exited (status 3)") || !strings.Contains(text, "last stderr lines:\n  ") {
					t.Errorf("crashy's drop told as %s %q", p.Level, text)
				}
			}
		case <-timeout:
			t.Fatal("no drop of crashy reached the client")
		}
	}
	if badTold != 1 {
		t.Errorf("bad's failure told %d times, want once", badTold)
	}
}
