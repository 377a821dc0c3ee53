package gateway_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"

	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/gateway/resource"
)

// Without session keys a requestState is the round's bare id: it
// continues that round only for the caller and the request that began it,
// as a sealed one does. Another caller who learns the id (a log, a
// proxy) cannot answer someone else's question, and no caller can carry
// a round over to another tool or other arguments.
func TestBareRequestStateBound(t *testing.T) {
	cfg := demoServer(t, "demo", "--legacy", "--elicitation")
	a := startReplica(t, gateway.HTTPOptions{}, cfg)
	first := modernCall(t, a, "ann-token", "demo__ask", map[string]any{}, "", nil)
	res, _ := first["result"].(map[string]any)
	state, _ := res["requestState"].(string)
	if state == "" {
		t.Fatalf("no requestState in %v", first)
	}
	var key string
	for k := range res["inputRequests"].(map[string]any) {
		key = k
	}
	answers := map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": "Mallory"}}}
	for _, tc := range []struct {
		name, token, tool string
		args              map[string]any
		want              string
	}{
		{"another caller", "bob-token", "demo__ask", map[string]any{}, "another caller"},
		{"other arguments", "ann-token", "demo__ask", map[string]any{"x": 1}, "another request"},
		{"another tool", "ann-token", "demo__echo", map[string]any{"text": "hi"}, "another request"},
	} {
		got := modernCall(t, a, tc.token, tc.tool, tc.args, state, answers)
		if e := errorOf(got); !strings.Contains(e, "requestState refused") || !strings.Contains(e, tc.want) {
			t.Errorf("%s: %v, want the requestState refused as %s", tc.name, got, tc.want)
		}
	}
	// The round is still Ann's to finish.
	ann := map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": "Ann"}}}
	done := modernCall(t, a, "ann-token", "demo__ask", map[string]any{}, state, ann)
	if r, _ := done["result"].(map[string]any); r == nil || !strings.Contains(toJSON(r), "hello Ann") {
		t.Fatalf("Ann finishing her round: %v", done)
	}
}

// The guard takes the bearer scheme in any case and the token with the
// blanks around it trimmed (RFC 7235 §2.1); the caller a request is
// bound to (its rate bucket, its sessions) is the same however the
// client writes the header, so spelling it another way is no fresh
// bucket.
func TestCallerOfBearerSpellings(t *testing.T) {
	guard, err := resource.New(resource.Options{Resource: "http://127.0.0.1/mcp", Issuers: []string{"http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	limits := &gateway.Limits{PerUser: &gateway.Rate{Rate: 0.001, Burst: 1}} // no token comes back within the test
	r := startReplica(t, gateway.HTTPOptions{Token: "ops-token", Resource: guard, Limits: limits}, demoServer(t, "demo"))
	if msg := errorOf(modernCallAs(t, r.srv.URL, "Bearer ops-token", "demo__echo", map[string]any{"text": "hi"}, "", nil)); msg != "" {
		t.Fatalf("first call, within the burst: %s", msg)
	}
	for _, authz := range []string{"bearer ops-token", "BEARER ops-token", "Bearer  ops-token", "Bearer ops-token "} {
		msg := errorOf(modernCallAs(t, r.srv.URL, authz, "demo__echo", map[string]any{"text": "hi"}, "", nil))
		if !strings.Contains(msg, "rate limit") {
			t.Errorf("Authorization %q past the burst: %q, want the same caller's limit", authz, msg)
		}
	}
}

// A kept whole result (MaxResultText) is its caller's: another caller
// who learns its URI (a shared transcript, a log) reads nothing, even
// one whose view does not show the tool that made it.
func TestKeptResultIsItsCallers(t *testing.T) {
	s := serveTeamWith(t, &gateway.Options{MaxResultText: 100}, gateway.HTTPOptions{Access: teamAccess}, demoServer(t, "a"), demoServer(t, "b"))
	alice := s.as(t, "alice-tok", "", config.ProtocolLegacy, nil)
	long := strings.Repeat("secret ", 100)
	res, err := alice.CallTool(context.Background(), &mcp.CallToolParams{Name: "a__echo", Arguments: map[string]any{"text": long}})
	if err != nil {
		t.Fatal(err)
	}
	var uri string
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			uri = l.URI
		}
	}
	if uri == "" {
		t.Fatalf("no link to the whole result in %v", res.Content)
	}
	for _, era := range []string{config.ProtocolLegacy, config.ProtocolModern} {
		bob := s.as(t, "bob-tok", "", era, nil)
		if got, err := bob.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s: bob read alice's kept result: %d bytes", era, len(got.Contents[0].Text))
		}
	}
	whole, err := alice.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(whole.Contents) != 1 || whole.Contents[0].Text != long {
		t.Fatalf("alice reading her whole result: %v", err)
	}
	// In the new era the call runs as a round: its kept result is hers too.
	modern := s.as(t, "alice-tok", "", config.ProtocolModern, nil)
	res, err = modern.CallTool(context.Background(), &mcp.CallToolParams{Name: "a__echo", Arguments: map[string]any{"text": long}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			uri = l.URI
		}
	}
	if whole, err := modern.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err != nil || whole.Contents[0].Text != long {
		t.Errorf("alice reading her whole result in the new era: %v", err)
	}
	if _, err := s.as(t, "bob-tok", "", config.ProtocolModern, nil).ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err == nil {
		t.Error("bob read alice's new-era kept result")
	}
}

// headerTransport sets header on every request, after the bearer token.
type headerTransport struct {
	token  string
	header http.Header
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+h.token)
	for k, v := range h.header {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// A client cannot choose the limits its calls draw on by sending the tag
// the gateway uses internally (Switchboard-Handler): not another
// Handler's, more generous, not one that names none, in either era,
// with sealed sessions or go-sdk's.
func TestSpoofedHandlerTag(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keys=%v", keyed), func(t *testing.T) {
			var keys *gateway.SessionKeys
			if keyed {
				keys = loadKeys(t, randomKey(t))
			}
			strict := gateway.HTTPOptions{SessionKeys: keys, Limits: &gateway.Limits{PerUser: &gateway.Rate{Rate: 0.001, Burst: 1}}}
			r := startReplica(t, strict, demoServer(t, "demo"))
			generous := httptest.NewServer(r.gw.Handler(gateway.HTTPOptions{Limits: &gateway.Limits{PerUser: &gateway.Rate{Rate: 1000, Burst: 1000}}}))
			t.Cleanup(generous.Close)
			for i, spoof := range []string{"2", "", "999", "1, 2"} {
				for _, era := range []string{config.ProtocolLegacy, config.ProtocolModern} {
					// A user of their own for each try, so each starts with a
					// burst of one.
					token := fmt.Sprintf("user-%d-%s", i, era)
					tr := headerTransport{token: token, header: http.Header{"Switchboard-Handler": {spoof}}}
					c := mcp.NewClient(&mcp.Implementation{Name: "spoofer", Version: "1"}, nil)
					sess, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: r.srv.URL + gateway.Path, HTTPClient: &http.Client{Transport: tr}},
						&mcp.ClientSessionOptions{ProtocolVersion: era})
					if err != nil {
						t.Fatal(err)
					}
					var refused int
					for range 3 {
						res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "hi"}})
						if err != nil {
							t.Fatal(err)
						}
						if res.IsError && strings.Contains(textOf(res), "rate limit") {
							refused++
						}
					}
					sess.Close()
					if refused != 2 {
						t.Errorf("Switchboard-Handler %q, %s: %d of 3 calls refused, want 2 (a burst of 1)", spoof, era, refused)
					}
				}
			}
		})
	}
}

// initSession posts an initialize with a client name of its own to r and
// returns the session id the gateway answered with.
func initSession(t *testing.T, r *replica, token, client string) string {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":%q,"version":"1"}}}`,
		config.ProtocolLegacy, client)
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL+gateway.Path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	if code, _ := rawRequest(t, r, http.MethodPost, id, token, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != http.StatusAccepted {
		t.Fatalf("initialized: %d", code)
	}
	return id
}

// A sealed session id has one spelling: base64 that decodes to the same
// bytes through other trailing bits is another id, and refused, or a
// client could go on with a session it DELETEd (revocation is by id) and
// hold two copies of one session. On a gateway without authentication
// everyone is one caller, and anyone who saw an id ended could revive it.
func TestSealedSessionIDOneSpelling(t *testing.T) {
	opts := gateway.HTTPOptions{SessionKeys: loadKeys(t, randomKey(t))}
	r := startReplica(t, opts, demoServer(t, "demo"))
	// An id whose last character carries spare bits: the sealed length
	// is not a multiple of 3 for one of three name lengths.
	var id, variant string
	for _, name := range []string{"c", "cc", "ccc"} {
		id = initSession(t, r, "ann-token", name)
		raw, err := base64.RawURLEncoding.DecodeString(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" {
			v := id[:len(id)-1] + string(c)
			if got, err := base64.RawURLEncoding.DecodeString(v); v != id && err == nil && bytes.Equal(got, raw) {
				variant = v
				break
			}
		}
		if variant != "" {
			break
		}
	}
	if variant == "" {
		t.Fatal("no id with spare bits among three lengths")
	}
	if code, body := rawRequest(t, r, http.MethodPost, variant, "ann-token", pingBody); code != http.StatusNotFound {
		t.Errorf("another spelling of a live id: %d %q, want 404", code, body)
	}
	if code, _ := rawRequest(t, r, http.MethodDelete, id, "ann-token", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d", code)
	}
	if code, body := rawRequest(t, r, http.MethodPost, variant, "ann-token", pingBody); code != http.StatusNotFound {
		t.Errorf("another spelling of a DELETEd id: %d %q, want 404", code, body)
	}
}

// hidden is a server over HTTP with a prompt, a resource, a template,
// completions and subscriptions, that counts the completions and
// subscriptions it is asked for.
func hidden(t *testing.T, name string, asked *atomic.Int32) config.ServerConfig {
	t.Helper()
	count := func() { asked.Add(1) }
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			count()
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"secret-value"}}}, nil
		},
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { count(); return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	srv.AddPrompt(&mcp.Prompt{Name: "payroll", Arguments: []*mcp.PromptArgument{{Name: "who"}}}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "payroll"}}}}, nil
	})
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "payroll data"}}}, nil
	}
	srv.AddResource(&mcp.Resource{Name: "r", URI: "payroll://all"}, read)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "t", URITemplate: "payroll://{who}"}, read)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		for ss := range srv.Sessions() {
			ss.Close()
		}
	})
	return config.ServerConfig{Name: name, Type: config.TransportHTTP, URL: ts.URL,
		Source: config.Source{Provider: "test", Path: "boundary_test.go", Level: config.LevelExplicit}}
}

// A profile holds for what is not a tool: a caller cannot get, complete,
// read or subscribe to the prompts and resources of a server outside it,
// by name, by URI, by a template's URI, or through ?servers=; and the
// hidden server is never asked. Carol, whose profile shows it, can.
func TestProfilesHoldBeyondTools(t *testing.T) {
	var asked atomic.Int32
	s := serveTeam(t, gateway.HTTPOptions{Access: teamAccess}, demoServer(t, "a"), hidden(t, "b", &asked))
	ctx := context.Background()
	alice := s.as(t, "alice-tok", "", config.ProtocolLegacy, nil)
	if _, err := alice.GetPrompt(ctx, &mcp.GetPromptParams{Name: "payroll", Arguments: map[string]string{"who": "x"}}); err == nil {
		t.Error("alice got b's prompt")
	}
	for _, ref := range []*mcp.CompleteReference{
		{Type: "ref/prompt", Name: "payroll"},
		{Type: "ref/resource", URI: "payroll://{who}"},
		{Type: "ref/resource", URI: "payroll://all"},
	} {
		res, err := alice.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: "who", Value: ""}})
		if err == nil && len(res.Completion.Values) > 0 {
			t.Errorf("alice completed %s %s%s: %v", ref.Type, ref.Name, ref.URI, res.Completion.Values)
		}
	}
	for _, uri := range []string{"payroll://all", "payroll://bob"} {
		if _, err := alice.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("alice read %s", uri)
		}
		if err := alice.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err == nil {
			t.Errorf("alice subscribed to %s", uri)
		}
	}
	if _, err := s.dial("alice-tok", "?servers=b", config.ProtocolLegacy, nil); err == nil {
		t.Error("alice connected with ?servers=b")
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("b was asked %d completions or subscriptions for alice", n)
	}
	// The control: carol's profile shows b, and the same requests work.
	carol := s.as(t, "carol-tok", "", config.ProtocolLegacy, nil)
	res, err := carol.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "payroll://{who}"}, Argument: mcp.CompleteParamsArgument{Name: "who"}})
	if err != nil || len(res.Completion.Values) != 1 {
		t.Errorf("carol's completion: %v %v", res, err)
	}
	if err := carol.Subscribe(ctx, &mcp.SubscribeParams{URI: "payroll://all"}); err != nil {
		t.Errorf("carol's subscription: %v", err)
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("b was asked %d times for carol, want 2", n)
	}
}

// Arguments nested past any parser's depth (200 000 levels, within the
// body limit), in both eras and as a legacy session's initialize: each
// request is answered, and the gateway goes on serving.
func TestDeeplyNestedBodies(t *testing.T) {
	r := startReplica(t, gateway.HTTPOptions{SessionKeys: loadKeys(t, randomKey(t))}, demoServer(t, "demo"))
	deep := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	post := func(version, body string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, r.srv.URL+gateway.Path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", version)
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "demo__echo")
		req.Header.Set("Authorization", "Bearer ann-token")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	call := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo__echo","arguments":{"text":%s},"_meta":{%q:%q}}}`,
		deep, mcp.MetaKeyProtocolVersion, config.ProtocolModern)
	post(config.ProtocolModern, call)
	post(config.ProtocolLegacy, call)
	post(config.ProtocolLegacy, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"x":`+deep+`},"clientInfo":{"name":"c","version":"1"}}}`)
	// Still serving: a plain call goes through.
	msg := modernCall(t, r, "ann-token", "demo__echo", map[string]any{"text": "still here"}, "", nil)
	if res, _ := msg["result"].(map[string]any); res == nil || !strings.Contains(toJSON(res), "still here") {
		t.Fatalf("after the nested bodies: %v", msg)
	}
}

// A caller who holds a session on every ?servers= list they may ask for
// fills the views clients choose, but crowds out no other caller's
// profile: profiles' views are counted apart.
func TestProfileViewsNotCrowdedOut(t *testing.T) {
	defer gateway.SetMaxViews(2)()
	s := serveTeam(t, gateway.HTTPOptions{Access: teamAccess}, demoServer(t, "a"), demoServer(t, "b"))
	s.as(t, "carol-tok", "?servers=a", config.ProtocolLegacy, nil)
	s.as(t, "carol-tok", "?servers=b", config.ProtocolLegacy, nil)
	for _, token := range []string{"alice-tok", "bob-tok"} {
		sess, err := s.dial(token, "", config.ProtocolLegacy, nil)
		if err != nil {
			t.Fatalf("%s locked out by carol's ?servers= views: %v", token, err)
		}
		sess.Close()
	}
	// The views clients choose are bounded as before.
	if _, err := s.dial("carol-tok", "?servers=a,b", config.ProtocolLegacy, nil); err == nil {
		t.Error("a third chosen view past a bound of 2, with both busy")
	}
}

// A JSON-RPC batch (2025-03-26, the last version that has them) draws on
// the caller's bucket once per call in it, with sealed sessions and with
// go-sdk's: a batch is no way past a rate limit.
func TestBatchDrawsPerCall(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keys=%v", keyed), func(t *testing.T) {
			opts := gateway.HTTPOptions{Limits: &gateway.Limits{PerUser: &gateway.Rate{Rate: 0.001, Burst: 1}}}
			if keyed {
				opts.SessionKeys = loadKeys(t, randomKey(t))
			}
			r := startReplica(t, opts, demoServer(t, "demo"))
			t.Cleanup(r.gw.CloseSessions) // go-sdk's, which no client here closes
			post := func(session, body string) (string, string) {
				t.Helper()
				req, _ := http.NewRequest(http.MethodPost, r.srv.URL+gateway.Path, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer ann-token")
				if session != "" {
					req.Header.Set("Mcp-Session-Id", session)
					req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.Header.Get("Mcp-Session-Id"), string(b)
			}
			id, _ := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`)
			if id == "" {
				t.Fatal("no session")
			}
			post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			call := func(n int) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"demo__echo","arguments":{"text":"call-%d"}}}`, n, n)
			}
			_, body := post(id, "["+call(10)+","+call(11)+","+call(12)+"]")
			if n := strings.Count(body, "rate limit"); n != 2 {
				t.Errorf("a batch of 3 with a burst of 1: %d refused, want 2:\n%s", n, body)
			}
		})
	}
}
