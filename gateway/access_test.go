package gateway_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/gateway/store"
	"github.com/switchboard-mcp/switchboard/host"
)

// teamTokens are the test verifier's tokens: each names a user and the
// groups claim (a JSON array, as a JWT's would decode).
var teamTokens = map[string]*auth.TokenInfo{
	"alice-tok": {UserID: "alice"},
	"bob-tok":   {UserID: "bob"},
	"carol-tok": {UserID: "carol"},
	"dave-tok":  {UserID: "dave", Extra: map[string]any{"groups": []any{"sre", "unknown-group"}}},
	"eve-tok":   {UserID: "eve", Extra: map[string]any{"groups": []any{"sales"}}},
	// No subject: go-sdk binds its session to no user.
	"anon-sre-tok": {Extra: map[string]any{"groups": "sre"}},
}

func teamVerifier(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	ti, ok := teamTokens[token]
	if !ok {
		return nil, auth.ErrInvalidToken
	}
	out := *ti
	out.Expiration = time.Now().Add(time.Hour)
	return &out, nil
}

// teamAccess: alice sees a, bob b but its sleep, carol both, the sre
// group c's echo alone; nobody else anything.
var teamAccess = &gateway.Access{
	Profiles: map[string]host.ViewFilter{
		"work":  {Servers: []string{"a"}},
		"ops":   {Servers: []string{"b"}, Tools: config.ToolFilter{Deny: []string{"b__sleep"}}},
		"cecho": {Servers: []string{"c"}, Tools: config.ToolFilter{Allow: []string{"c__echo"}}},
	},
	Users:  map[string][]string{"alice": {"work"}, "bob": {"ops"}, "carol": {"work", "ops"}},
	Groups: map[string][]string{"sre": {"cecho"}},
}

// team is a gateway over a host, served over HTTP on loopback behind
// go-sdk's bearer-token middleware with teamVerifier.
type team struct {
	h   *host.Host
	gw  *gateway.Gateway
	url string
}

func serveTeam(t testing.TB, opts gateway.HTTPOptions, configs ...config.ServerConfig) *team {
	t.Helper()
	return serveTeamWith(t, nil, opts, configs...)
}

// serveTeamWith is serveTeam with the gateway's options.
func serveTeamWith(t testing.TB, gopts *gateway.Options, opts gateway.HTTPOptions, configs ...config.ServerConfig) *team {
	t.Helper()
	h := host.New(&host.Options{ToolPrefix: host.NoToolPrefix})
	gw := gateway.New(h, gopts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gw.Run(ctx) }()
	srv := httptest.NewServer(auth.RequireBearerToken(teamVerifier, nil)(gw.Handler(opts)))
	t.Cleanup(func() {
		cancel()
		<-done
		srv.CloseClientConnections()
		srv.Close()
		gw.CloseSessions() // those of raw requests, which no client closes
		h.Close()
	})
	if err := h.Start(ctx, configs); err != nil {
		t.Fatal(err)
	}
	h.WaitSettled(ctx)
	<-gw.Synced()
	return &team{h: h, gw: gw, url: srv.URL + gateway.Path}
}

// as connects a client with token, in protocol era version.
func (s *team) as(t testing.TB, token, suffix, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	sess, err := s.dial(token, suffix, version, opts)
	if err != nil {
		t.Fatalf("%s%s: %v", token, suffix, err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

func (s *team) dial(token, suffix, version string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "team-client", Version: "1"}, opts)
	tr := &mcp.StreamableClientTransport{Endpoint: s.url + suffix, HTTPClient: &http.Client{Transport: bearerTransport(token)}}
	return c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
}

// post sends one JSON-RPC message as token, with the session id when
// given, and returns the status and body.
func (s *team) post(t *testing.T, token, session, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Protocol-Version", config.ProtocolLegacy)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func promptNames(t *testing.T, sess *mcp.ClientSession) []string {
	t.Helper()
	res, err := sess.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
	}
	return names
}

// unknownLike reports whether err, the refusal of a call of name, reads
// as the refusal of a name no server has: a hidden tool is not told apart.
func unknownLike(t *testing.T, sess *mcp.ClientSession, name string) {
	t.Helper()
	ctx := context.Background()
	_, hidden := sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "x"}})
	_, unknown := sess.CallTool(ctx, &mcp.CallToolParams{Name: "zz__nothing", Arguments: map[string]any{"text": "x"}})
	if hidden == nil || unknown == nil {
		t.Fatalf("call of %s: %v; of an unknown tool: %v (want both refused)", name, hidden, unknown)
	}
	if h, u := strings.ReplaceAll(hidden.Error(), name, "NAME"), strings.ReplaceAll(unknown.Error(), "zz__nothing", "NAME"); h != u {
		t.Errorf("a hidden tool's refusal differs from an unknown one's:\n%s\n%s", h, u)
	}
}

// TestProfilesPerUser: each user sees and calls only the tools and
// prompts of their profiles (several: the union; a group's), in both
// protocol eras; a hidden tool called by its exact name is refused as an
// unknown one is; a caller no rule names is refused; ?servers= narrows
// within a caller's view and never widens it.
func TestProfilesPerUser(t *testing.T) {
	s := serveTeam(t, gateway.HTTPOptions{Access: teamAccess}, demoServer(t, "a"), demoServer(t, "b"), demoServer(t, "c"))
	ctx := context.Background()
	for _, tc := range []struct {
		token, version     string
		want, hidden       []string
		prompts, noPrompts []string
	}{
		{"alice-tok", config.ProtocolLegacy, []string{"a__echo", "a__sleep"}, []string{"b__echo", "c__echo"}, []string{"a__greet"}, []string{"b__greet", "c__greet"}},
		{"alice-tok", config.ProtocolModern, []string{"a__echo"}, []string{"b__echo", "c__echo"}, []string{"a__greet"}, []string{"b__greet"}},
		{"bob-tok", config.ProtocolLegacy, []string{"b__echo", "b__add"}, []string{"b__sleep", "a__echo", "c__echo"}, []string{"b__greet"}, []string{"a__greet"}},
		{"carol-tok", config.ProtocolLegacy, []string{"a__echo", "a__sleep", "b__echo"}, []string{"b__sleep", "c__echo"}, []string{"a__greet", "b__greet"}, []string{"c__greet"}},
		{"dave-tok", config.ProtocolModern, []string{"c__echo"}, []string{"c__add", "a__echo", "b__echo"}, []string{"c__greet"}, []string{"a__greet"}},
	} {
		t.Run(tc.token+"/"+tc.version, func(t *testing.T) {
			sess := s.as(t, tc.token, "", tc.version, nil)
			names := toolNames(t, sess)
			for _, want := range tc.want {
				if !slices.Contains(names, want) {
					t.Errorf("no %s in %v", want, names)
				}
				res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: want, Arguments: argsFor(want)})
				if err != nil || res.IsError {
					t.Errorf("call of %s: %v %v", want, err, res)
				}
			}
			for _, hidden := range tc.hidden {
				if slices.Contains(names, hidden) {
					t.Errorf("%s listed: %v", hidden, names)
				}
				unknownLike(t, sess, hidden)
			}
			prompts := promptNames(t, sess)
			for _, p := range tc.prompts {
				if !slices.Contains(prompts, p) {
					t.Errorf("no prompt %s in %v", p, prompts)
				}
			}
			for _, p := range tc.noPrompts {
				if slices.Contains(prompts, p) {
					t.Errorf("prompt %s listed: %v", p, prompts)
				}
				if _, err := sess.GetPrompt(ctx, &mcp.GetPromptParams{Name: p, Arguments: map[string]string{"name": "x"}}); err == nil {
					t.Errorf("prompt %s of a server outside the view was got", p)
				}
			}
		})
	}

	// A caller no rule names, nor a default, is refused: fail closed.
	if _, err := s.dial("eve-tok", "", config.ProtocolLegacy, nil); err == nil {
		t.Error("eve, with no profile, connected")
	}
	code, body := s.post(t, "eve-tok", "", initializeBody)
	if code != http.StatusForbidden || !strings.Contains(body, `no profile gives user "eve" access here`) {
		t.Errorf("eve: %d %q, want 403 naming her", code, body)
	}

	// ?servers= narrows within the caller's view, never widens it.
	narrow := s.as(t, "carol-tok", "?servers=b", config.ProtocolLegacy, nil)
	if names := toolNames(t, narrow); !slices.Contains(names, "b__echo") || slices.Contains(names, "a__echo") || slices.Contains(names, "b__sleep") {
		t.Errorf("carol's ?servers=b: %v", names)
	}
	if _, err := s.dial("alice-tok", "?servers=b", config.ProtocolLegacy, nil); err == nil {
		t.Error("alice widened her view with ?servers=b")
	}
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestSessionBoundToCaller: a session begun by one caller is refused to
// another: go-sdk binds it to its user, and the gateway to its view when
// it began with no user (a token without a subject).
func TestSessionBoundToCaller(t *testing.T) {
	s := serveTeam(t, gateway.HTTPOptions{Access: teamAccess}, demoServer(t, "a"), demoServer(t, "c"))
	sessionOf := func(token string) string {
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(initializeBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		id := resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode != http.StatusOK || id == "" {
			t.Fatalf("initialize as %s: %d, session %q", token, resp.StatusCode, id)
		}
		return id
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, tc := range []struct{ owner, other string }{{"alice-tok", "carol-tok"}, {"anon-sre-tok", "alice-tok"}} {
		id := sessionOf(tc.owner)
		if code, body := s.post(t, tc.owner, id, list); code != http.StatusOK {
			t.Errorf("%s on its own session: %d %s", tc.owner, code, body)
		}
		if code, body := s.post(t, tc.other, id, list); code != http.StatusForbidden {
			t.Errorf("%s on %s's session: %d %s, want 403", tc.other, tc.owner, code, body)
		}
	}
}

// TestListChangedPerView: a tool added to a server reaches as
// list_changed the callers whose view shows it, and no one else.
func TestListChangedPerView(t *testing.T) {
	s := serveTeam(t, gateway.HTTPOptions{Access: teamAccess}, demoServer(t, "a", "--test-tools"), demoServer(t, "b", "--test-tools"))
	changes := map[string]chan struct{}{}
	sessions := map[string]*mcp.ClientSession{}
	for _, who := range []string{"alice", "bob", "carol"} {
		ch := make(chan struct{}, 8)
		changes[who] = ch
		sessions[who] = s.as(t, who+"-tok", "", config.ProtocolLegacy, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { ch <- struct{}{} },
		})
	}
	await := func(who, tool string) {
		t.Helper()
		for !slices.Contains(toolNames(t, sessions[who]), tool) {
			select {
			case <-changes[who]:
			case <-time.After(20 * time.Second):
				t.Fatalf("%s: no list_changed with %s", who, tool)
			}
		}
	}
	ctx := context.Background()
	if _, err := sessions["bob"].CallTool(ctx, &mcp.CallToolParams{Name: "b__add_tool", Arguments: map[string]any{"name": "extra"}}); err != nil {
		t.Fatal(err)
	}
	await("bob", "b__extra")
	await("carol", "b__extra")
	// Then one alice sees: hers is the only list_changed she gets.
	if _, err := sessions["carol"].CallTool(ctx, &mcp.CallToolParams{Name: "a__add_tool", Arguments: map[string]any{"name": "more"}}); err != nil {
		t.Fatal(err)
	}
	await("alice", "a__more")
	await("carol", "a__more")
	if n := len(changes["alice"]); n != 0 {
		t.Errorf("alice got %d list_changed more than her own", n)
	}
	if names := toolNames(t, sessions["alice"]); slices.Contains(names, "b__extra") {
		t.Errorf("alice sees b's new tool: %v", names)
	}
	if names := toolNames(t, sessions["bob"]); slices.Contains(names, "a__more") {
		t.Errorf("bob sees a's new tool: %v", names)
	}
}

// argsFor are arguments the demo's tool of that exposed name takes.
func argsFor(tool string) map[string]any {
	switch {
	case strings.HasSuffix(tool, "__add"):
		return map[string]any{"a": 1, "b": 2}
	case strings.HasSuffix(tool, "__sleep"):
		return map[string]any{"ms": 1}
	}
	return map[string]any{"text": "hi"}
}

var retryIn = regexp.MustCompile(`^rate limit: try again in \d+\.\d s \(`)

// limitedCall calls tool as sess and returns the refusal's text, "" when
// the call went through.
func limitedCall(t *testing.T, sess *mcp.ClientSession, tool string) string {
	t.Helper()
	res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: argsFor(tool)})
	if err != nil {
		t.Fatalf("call of %s: %v (a limit is a tool error, not a protocol one)", tool, err)
	}
	if !res.IsError {
		return ""
	}
	text := textOf(res)
	if !retryIn.MatchString(text) {
		t.Errorf("refusal of %s: %q, want it to say when to try again", tool, text)
	}
	return text
}

// TestRateLimits: past a user's burst their calls are refused with a
// tool error saying when to try again, in both eras, another user's are
// not; a tool's limit holds for every caller together; refusals are
// counted by limit.
func TestRateLimits(t *testing.T) {
	limits := &gateway.Limits{
		PerUser: &gateway.Rate{Rate: 0.001, Burst: 3}, // no token comes back within the test
		PerTool: map[string]gateway.Rate{"a__add": {Rate: 0.001, Burst: 1}},
	}
	s := serveTeam(t, gateway.HTTPOptions{Access: teamAccess, Limits: limits}, demoServer(t, "a"), demoServer(t, "c"))
	for _, era := range []string{config.ProtocolLegacy, config.ProtocolModern} {
		t.Run(era, func(t *testing.T) {
			// The buckets are the store's: a session of each era draws on
			// one per user, so each era has its own user here.
			token, tool := "alice-tok", "a__echo"
			if era == config.ProtocolModern {
				token, tool = "dave-tok", "c__echo"
			}
			sess := s.as(t, token, "", era, nil)
			for i := range 3 {
				if msg := limitedCall(t, sess, tool); msg != "" {
					t.Fatalf("call %d within the burst refused: %s", i+1, msg)
				}
			}
			msg := limitedCall(t, sess, tool)
			if !strings.Contains(msg, "(your calls: 0.001 a second, 3 at once)") {
				t.Errorf("4th call: %q, want a refusal naming the user's limit", msg)
			}
		})
	}
	carol := s.as(t, "carol-tok", "", config.ProtocolLegacy, nil)
	if msg := limitedCall(t, carol, "a__add"); msg != "" {
		t.Fatalf("carol's first a__add: %s", msg)
	}
	if msg := limitedCall(t, carol, "a__add"); !strings.Contains(msg, "(calls of a__add: 0.001 a second, 1 at once)") {
		t.Errorf("carol's second a__add: %q, want the tool's limit", msg)
	}
	if msg := limitedCall(t, carol, "a__echo"); msg != "" {
		t.Errorf("carol's a__echo, within her burst: %s", msg)
	}
	got := s.gw.Stats().RateLimited
	if got["user"] != 2 || got["tool"] != 1 || got["store"] != 0 {
		t.Errorf("refusals counted: %v, want user 2, tool 1", got)
	}
}

// TestLimitsSharedAcrossReplicas: two gateways (replicas, each with a
// host of its own) over one store draw on the same buckets.
func TestLimitsSharedAcrossReplicas(t *testing.T) {
	shared := store.NewMemory()
	defer shared.Close()
	opts := gateway.HTTPOptions{Limits: &gateway.Limits{PerUser: &gateway.Rate{Rate: 0.001, Burst: 2}}, Store: shared}
	one := serveTeam(t, opts, demoServer(t, "a"))
	two := serveTeam(t, opts, demoServer(t, "a"))
	s1 := one.as(t, "alice-tok", "", config.ProtocolLegacy, nil)
	s2 := two.as(t, "alice-tok", "", config.ProtocolLegacy, nil)
	var refused []string
	for i, sess := range []*mcp.ClientSession{s1, s2, s1, s2} {
		if msg := limitedCall(t, sess, "a__echo"); msg != "" {
			refused = append(refused, fmt.Sprintf("call %d", i+1))
		}
	}
	if !slices.Equal(refused, []string{"call 3", "call 4"}) {
		t.Errorf("refused: %v, want calls 3 and 4 (a burst of 2 across both replicas)", refused)
	}
	// Bob's bucket is his own.
	if msg := limitedCall(t, two.as(t, "bob-tok", "", config.ProtocolLegacy, nil), "a__echo"); msg != "" {
		t.Errorf("bob refused: %s", msg)
	}
}

// TestProfilesThroughToolSearch: with tool search, a tool outside the
// caller's view is not found, described nor called through the
// meta-tools, whatever name is given; call_tool draws on the rate limits
// of the tool it calls.
func TestProfilesThroughToolSearch(t *testing.T) {
	limits := &gateway.Limits{PerTool: map[string]gateway.Rate{"a__echo": {Rate: 0.001, Burst: 1}}}
	s := serveTeamWith(t, &gateway.Options{ToolSearch: true}, gateway.HTTPOptions{Access: teamAccess, Limits: limits}, demoServer(t, "a"), demoServer(t, "b"))
	sess := s.as(t, "alice-tok", "", config.ProtocolLegacy, nil)
	ctx := context.Background()
	meta := func(tool string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return res
	}
	found := textOf(meta("search_tools", map[string]any{"query": "echo text back", "limit": 50}))
	if !strings.Contains(found, "a__echo") || strings.Contains(found, "b__") {
		t.Errorf("search as alice:\n%s", found)
	}
	for _, name := range []string{"b__echo", "b/echo", "mcp__b__echo"} {
		hidden, unknown := meta("describe_tool", map[string]any{"name": name}), meta("describe_tool", map[string]any{"name": "zz__nothing"})
		if !hidden.IsError || strings.ReplaceAll(textOf(hidden), name, "N") != strings.ReplaceAll(textOf(unknown), "zz__nothing", "N") {
			t.Errorf("describe_tool %s: %q; of an unknown tool: %q", name, textOf(hidden), textOf(unknown))
		}
		hidden = meta("call_tool", map[string]any{"name": name, "arguments": map[string]any{"text": "x"}})
		unknown = meta("call_tool", map[string]any{"name": "zz__nothing", "arguments": map[string]any{"text": "x"}})
		if !hidden.IsError || strings.ReplaceAll(textOf(hidden), name, "N") != strings.ReplaceAll(textOf(unknown), "zz__nothing", "N") {
			t.Errorf("call_tool %s: %q; of an unknown tool: %q", name, textOf(hidden), textOf(unknown))
		}
	}
	if res := meta("call_tool", map[string]any{"name": "a__echo", "arguments": map[string]any{"text": "hi"}}); res.IsError || textOf(res) != "hi" {
		t.Errorf("call_tool a__echo: %q", textOf(res))
	}
	if res := meta("call_tool", map[string]any{"name": "a__echo", "arguments": map[string]any{"text": "hi"}}); !res.IsError || !retryIn.MatchString(textOf(res)) {
		t.Errorf("call_tool a__echo past its limit: %q", textOf(res))
	}
}

// TestProfilesHideResources: a caller lists and reads the resources and
// templates of their profile's servers only.
func TestProfilesHideResources(t *testing.T) {
	s := serveTeam(t, gateway.HTTPOptions{Access: teamAccess}, templated(t, "a", "file:///{+path}"), templated(t, "b", "mem:///{+key}"))
	ctx := context.Background()
	for _, tc := range []struct {
		token, mine, theirs string
		readme              bool // demo://readme is a's: both list it, a first
	}{
		{"alice-tok", "file:///x", "mem:///y", true},
		{"bob-tok", "mem:///y", "file:///x", false},
	} {
		sess := s.as(t, tc.token, "", config.ProtocolLegacy, nil)
		if res, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.mine}); err != nil || !strings.HasSuffix(res.Contents[0].Text, ": "+tc.mine) {
			t.Errorf("%s reads %s: %v", tc.token, tc.mine, err)
		}
		if _, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.theirs}); err == nil {
			t.Errorf("%s read %s, of a server outside their profile", tc.token, tc.theirs)
		}
		tpls, err := sess.ListResourceTemplates(ctx, nil)
		if err != nil || len(tpls.ResourceTemplates) != 1 || !strings.HasPrefix(tpls.ResourceTemplates[0].URITemplate, tc.mine[:4]) {
			t.Errorf("%s's templates: %v %v", tc.token, tpls, err)
		}
		list, err := sess.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		listed := slices.ContainsFunc(list.Resources, func(r *mcp.Resource) bool { return r.URI == "demo://readme" })
		_, readErr := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://readme"})
		if listed != tc.readme || (readErr == nil) != tc.readme {
			t.Errorf("%s: demo://readme listed %v, read error %v; want it only for a's callers", tc.token, listed, readErr)
		}
	}
}

// TestAccessDefaultAndOperator: a default profile covers callers no rule
// names; a caller without a TokenInfo (the shared --token's, or an
// unauthenticated one on loopback) is the operator and sees it all.
func TestAccessDefaultAndOperator(t *testing.T) {
	withDefault := *teamAccess
	withDefault.Default = []string{"ops"}
	s := serveTeam(t, gateway.HTTPOptions{Access: &withDefault}, demoServer(t, "a"), demoServer(t, "b"))
	names := toolNames(t, s.as(t, "eve-tok", "", config.ProtocolLegacy, nil))
	if !slices.Contains(names, "b__echo") || slices.Contains(names, "a__echo") || slices.Contains(names, "b__sleep") {
		t.Errorf("eve, by default ops: %v", names)
	}
	// alice's own rule, not the default, decides hers.
	if names := toolNames(t, s.as(t, "alice-tok", "", config.ProtocolLegacy, nil)); slices.Contains(names, "b__echo") || !slices.Contains(names, "a__echo") {
		t.Errorf("alice: %v", names)
	}
	op := serve(t, gateway.HTTPOptions{Token: "operator-token", Access: teamAccess}, demoServer(t, "a"), demoServer(t, "b"))
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	sess, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: op.url, HTTPClient: &http.Client{Transport: bearerTransport("operator-token")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if names := toolNames(t, sess); !slices.Contains(names, "a__echo") || !slices.Contains(names, "b__sleep") {
		t.Errorf("the operator's view: %v, want every tool", names)
	}
}
