//go:build unix

package replicatest_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testkit/replicatest"
)

// keyFile writes a session key file as docs/deploy/README.md says to
// make one (one line: the base64 of 32 random bytes, mode 0600) and
// returns its path.
func keyFile(t testing.TB, dir string) string {
	t.Helper()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	p := filepath.Join(dir, "session.keys")
	if err := os.WriteFile(p, []byte(base64.StdEncoding.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// bearer is an HTTP client that sends "Authorization: Bearer token": the
// replicas here require no token (loopback), but a sealed session is
// bound to the token its caller gave (gateway.CallerOf).
func bearer(token string) *http.Client {
	return &http.Client{Transport: bearerTransport{token}}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// dialAs is dial as the caller with that bearer token, with go-sdk's
// default retries of the session's stream: after a replica dies, the
// client reconnects its stream, through HAProxy, to another.
func dialAs(ctx context.Context, url, version, token string) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(ctx, callBound)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "replicatest", Version: "1"}, nil)
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: bearer(token)}, &mcp.ClientSessionOptions{ProtocolVersion: version})
}

// rawList sends tools/list in session id as the caller with token and
// returns the HTTP status and body.
func rawList(t *testing.T, url, id, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", legacy)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, strings.TrimSpace(string(body))
}

// TestSessionSurvivesItsReplica: three replicas sharing a session key
// file, behind docs/deploy/haproxy.cfg. A 2025-11-25 session begun on
// replica A goes on through another after A is SIGKILLed: the same
// client session, the same Mcp-Session-Id, no initialize, its call
// answered by another replica's server. The id is bound to its caller:
// another token presenting it is refused (403) by every replica, and a
// tampered id is not found (404).
func TestSessionSurvivesItsReplica(t *testing.T) {
	c := replicatest.New(t, replicatest.Binary(t), nil)
	c.SetServer(t, "demo", c.Demo("demo"))
	c.Start(t, 3, "--session-key-file", keyFile(t, c.Dir))
	h := c.StartHAProxy(t, "haproxy.cfg")
	replicaOf := map[string]*replicatest.Replica{}
	for _, r := range c.Replicas {
		replicaOf[callText(t, connect(t, r.URL, next, nil), "demo__pid", nil)] = r
	}

	s, err := dialAs(t.Context(), h.URL, legacy, "alice")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id := s.ID()
	a := replicaOf[callText(t, s, "demo__pid", nil)]
	if a == nil {
		t.Fatal("the session's call reached no known replica")
	}
	a.Signal(t, syscall.SIGKILL)
	_ = a.Wait(t)

	b := replicaOf[callText(t, s, "demo__pid", nil)]
	switch {
	case b == nil || b == a:
		t.Fatalf("after %s was killed the session's call was answered by %v", a.Name, b)
	case s.ID() != id:
		t.Fatalf("the session's id changed from %s to %s", id, s.ID())
	}
	t.Logf("session %s: begun on %s, went on through %s after %s was killed", id, a.Name, b.Name, a.Name)
	if tools := listTools(t, s); len(tools) == 0 {
		t.Error("the session lists no tools on its new replica")
	}

	for _, r := range c.Replicas {
		if r == a {
			continue
		}
		if code, body := rawList(t, r.URL, id, "mallory"); code != http.StatusForbidden {
			t.Errorf("%s: another token presenting the session's id: %d %s, want 403", r.Name, code, body)
		}
		tampered := id[:len(id)-2] + map[bool]string{true: "AA", false: "AB"}[strings.HasSuffix(id, "AB")]
		if code, body := rawList(t, r.URL, tampered, "alice"); code != http.StatusNotFound {
			t.Errorf("%s: a tampered session id: %d %s, want 404", r.Name, code, body)
		}
		if code, body := rawList(t, r.URL, id, "alice"); code != http.StatusOK {
			t.Errorf("%s: the session's own caller: %d %s, want 200", r.Name, code, body)
		}
	}

	// The TypeScript SDK's client: its session's replica is killed while
	// it pauses, and its next call goes on in the same session.
	a.Start(t)
	up, cancel := context.WithTimeout(t.Context(), replicatest.StartBound)
	defer cancel()
	if err := h.AwaitStatus(up, a.Name, "UP"); err != nil {
		t.Fatal(err)
	}
	replicaOf[callText(t, connect(t, a.URL, next, nil), "demo__pid", nil)] = a // its new demo server
	var tsA *replicatest.Replica
	steps := tsClient(t, []string{"--token", "ts-user", "--url", h.URL, "--call", "demo__pid", "--pause", "--call", "demo__pid", "--list"}, func(steps []map[string]any) {
		if tsA = replicaOf[pidText(steps)]; tsA == nil {
			t.Errorf("the TypeScript client's call reached no known replica: %v", steps)
			return
		}
		tsA.Signal(t, syscall.SIGKILL)
		_ = tsA.Wait(t)
	})
	var calls []map[string]any
	for _, s := range steps {
		if s["step"] == "call" {
			calls = append(calls, s)
		}
	}
	if len(calls) != 2 || calls[1]["ok"] != true || calls[1]["isError"] == true {
		t.Fatalf("the TypeScript client's call after its replica was killed: %v", steps)
	}
	if tsB := replicaOf[calls[1]["text"].(string)]; tsB == nil || tsB == tsA {
		t.Errorf("the TypeScript client's second call was answered by %v, want another replica than %v", tsB, tsA)
	}
	if l := step(t, steps, "list"); l["ok"] != true {
		t.Errorf("the TypeScript client's list after failover: %v", l)
	}
}

// pidText is the text of the last call step so far.
func pidText(steps []map[string]any) string {
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i]["step"] == "call" {
			s, _ := steps[i]["text"].(string)
			return s
		}
	}
	return ""
}
