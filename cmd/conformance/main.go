// Command conformance is the client program the official MCP conformance
// suite runs (`conformance client --command ...`). It connects through
// switchboard's host library, not bare go-sdk, so the suite tests our code.
//
// The suite runs it as `conformance <serverURL>` with the scenario in
// MCP_CONFORMANCE_SCENARIO. `make conformance` runs every client scenario the
// suite lists; one this program does not know exits 2 and fails, and must be
// in test/conformance-expected-failures.yml (docs/CONFORMANCE.md).
// SWITCHBOARD_CONFORMANCE_DEBUG=1 adds the host's diagnostics to stderr.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// serverName is the name the suite's server gets in the host; its tools
// are exposed as mcp__conformance__<tool>.
const serverName = "conformance"

// envDebug, when set, sends the host's diagnostics (reconnects, failed
// connects) to stderr; otherwise a failure is one line.
const envDebug = "SWITCHBOARD_CONFORMANCE_DEBUG"

// scenarioTimeout bounds a whole scenario. Each one is a handshake and a
// call or two against a loopback server (sse-retry adds a 500 ms reconnect),
// done in well under a second. The bound stays below the suite's own 30 s
// timeout, so a hanging host ends with our error line rather than a kill.
const scenarioTimeout = 20 * time.Second

// Exit codes: the suite only tells zero from non-zero, the rest is for people.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// scenario is one conformance client scenario.
type scenario struct {
	// elicitation makes the host offer elicitation, answered by accepting
	// with empty content: the host fills in the schema's defaults.
	elicitation bool
	// auth makes the host authorize with OAuth at connect.
	auth bool
	// run does the scenario's work once the host has connected.
	run func(ctx context.Context, h *host.Host) error
}

// connectOnly is the work of a scenario whose checks are all about the
// connect: the handshake and the lists the host asks for after it.
func connectOnly(context.Context, *host.Host) error { return nil }

var scenarios = map[string]scenario{
	// The suite checks the initialize request; the host lists what the
	// server advertises right after it (here: nothing).
	"initialize": {run: connectOnly},
	"tools_call": {run: func(ctx context.Context, h *host.Host) error {
		_, err := call(ctx, h, "add_numbers", map[string]any{"a": 5, "b": 3})
		return err
	}},
	"elicitation-sep1034-client-defaults": {elicitation: true, run: func(ctx context.Context, h *host.Host) error {
		_, err := call(ctx, h, "test_client_elicitation_defaults", map[string]any{})
		return err
	}},
	// The server closes the call's event stream before answering; the
	// transport must reconnect after the announced retry delay with
	// Last-Event-ID and get the answer on the new stream.
	"sse-retry": {run: func(ctx context.Context, h *host.Host) error {
		_, err := call(ctx, h, "test_reconnection", map[string]any{})
		return err
	}},
	// SEP-2575: every request carries MCP-Protocol-Version and the _meta
	// envelope, and the connect retries with a version the server names
	// after refusing the first (-32022). All of it is the connect's.
	"request-metadata": {run: connectOnly},
	// SEP-2322: each tool answers input_required with an elicitation to
	// fulfil (with requestState or without), or completes at once; the
	// retries happen inside the host's session, so all four calls must
	// simply succeed.
	"sep-2322-client-request-state": {elicitation: true, run: func(ctx context.Context, h *host.Host) error {
		return callEach(ctx, h, []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"}, nil)
	}},
	"http-standard-headers":     {run: everyVerb},
	"http-custom-headers":       {run: contextToolCalls},
	"http-invalid-tool-headers": {run: offeredTools},
	// SEP-2106: the listed tool's schema $refs a canary URL that must not
	// be fetched. The host lists tools at connect; the tool being offered
	// shows the list arrived.
	"json-schema-ref-no-deref": {run: func(ctx context.Context, h *host.Host) error {
		_, err := exposed(h, "lookup_user")
		return err
	}},
	"json-schema-2020-12-preservation": {run: echoSchema},
	// SEP-2640 skills: the suite's checks look at skills/list and the
	// skill files read after it. The host has no skills extension: it
	// never lists skills nor reads a resource unasked, so connecting (the
	// host lists resources and prompts) is all there is; the checks come
	// out SKIPPED, a pass that says nothing either way.
	"sep-2640-client-no-prefetch":        {run: connectOnly},
	"sep-2640-client-verify-digest":      {run: connectOnly},
	"sep-2640-client-verify-size":        {run: connectOnly},
	"sep-2640-client-verify-frontmatter": {run: connectOnly},
}

// everyVerb (SEP-2243 standard headers) calls every tool, reads every
// resource and gets every prompt the server offers, so the suite sees the
// Mcp-Method and Mcp-Name headers of each kind of request. WaitSettled has
// waited for the resource and prompt lists.
func everyVerb(ctx context.Context, h *host.Host) error {
	var errs []error
	for _, t := range h.Tools().Tools {
		if t.Server == serverName {
			_, err := call(ctx, h, t.Tool, map[string]any{})
			errs = append(errs, err)
		}
	}
	resources, _ := h.Resources()
	prompts := h.Prompts()
	if len(resources) == 0 || len(prompts) == 0 {
		errs = append(errs, fmt.Errorf("the server offered %d resources and %d prompts; want some of each", len(resources), len(prompts)))
	}
	for _, r := range resources {
		_, err := h.ReadResource(ctx, r.Server, r.URI)
		errs = append(errs, err)
	}
	for _, p := range prompts {
		_, err := h.GetPrompt(ctx, p.Server, p.Name, map[string]string{})
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// contextToolCalls (SEP-2243 custom headers) makes the tool calls the
// scenario's context lists, arguments passed on byte for byte: the
// transport mirrors those the tool's schema marks with x-mcp-header into
// Mcp-Param-* headers, and the suite compares header and body.
func contextToolCalls(ctx context.Context, h *host.Host) error {
	calls, err := toolCalls(os.Getenv("MCP_CONFORMANCE_CONTEXT"))
	if err != nil {
		return err
	}
	if len(calls) == 0 {
		return errors.New("MCP_CONFORMANCE_CONTEXT lists no toolCalls")
	}
	var errs []error
	for _, c := range calls {
		_, err := call(ctx, h, c.Name, c.Arguments)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// toolCall is one entry of the context's toolCalls.
type toolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// toolCalls reads the toolCalls of a scenario context (JSON). Missing
// arguments are an empty object.
func toolCalls(raw string) ([]toolCall, error) {
	var c struct {
		ToolCalls []toolCall `json:"toolCalls"`
	}
	if raw == "" {
		return nil, nil
	}
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	for i := range c.ToolCalls {
		if len(c.ToolCalls[i].Arguments) == 0 || string(c.ToolCalls[i].Arguments) == "null" {
			c.ToolCalls[i].Arguments = json.RawMessage("{}")
		}
	}
	return c.ToolCalls, nil
}

// offeredTools (SEP-2243 invalid x-mcp-header) calls every tool the host
// offers. The server lists one valid tool and many whose x-mcp-header is
// malformed; the host must drop those from its tool set, and the suite
// fails the scenario for any of them called, or for the valid one not.
func offeredTools(ctx context.Context, h *host.Host) error {
	var names []string
	for _, t := range h.Tools().Tools {
		if t.Server == serverName {
			names = append(names, t.Tool)
		}
	}
	return callEach(ctx, h, names, map[string]any{"region": "us-west1"})
}

// echoSchema (SEP-1613, SEP-2106) passes the input schema the host holds
// for json_schema_2020_12_tool back to the server through
// json_schema_echo, as it is: the suite looks for the 2020-12 keywords
// ($schema, $defs, additionalProperties, $anchor, allOf, if/then/else)
// that a client's parsing could drop.
func echoSchema(ctx context.Context, h *host.Host) error {
	var schema any
	for _, t := range h.Tools().Tools {
		if t.Server == serverName && t.Tool == "json_schema_2020_12_tool" {
			schema = t.InputSchema
		}
	}
	if schema == nil {
		return errors.New("tool json_schema_2020_12_tool not offered")
	}
	_, err := call(ctx, h, "json_schema_echo", map[string]any{"schema": schema})
	return err
}

// callEach calls the named tools one after another with the same
// arguments (nil: none) and reports every failure.
func callEach(ctx context.Context, h *host.Host, tools []string, args map[string]any) error {
	if args == nil {
		args = map[string]any{}
	}
	var errs []error
	for _, tool := range tools {
		_, err := call(ctx, h, tool, args)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func main() {
	os.Exit(run(os.Args[1:], os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Stderr))
}

// authScenario is every auth/ scenario: the server asks for OAuth, the
// host runs the flow at connect (its Options.Authorize is the suite's
// "browser", which approves at once), and a tool call goes through with
// the token. What the client is registered as comes from the config the
// scenario's context makes (oauthConfig).
var authScenario = scenario{auth: true, run: func(ctx context.Context, h *host.Host) error {
	_, err := call(ctx, h, "test-tool", map[string]any{})
	return err
}}

// lookup finds a scenario: a named one, or any auth scenario.
func lookup(name string) (scenario, bool) {
	if sc, ok := scenarios[name]; ok {
		return sc, true
	}
	if strings.HasPrefix(name, "auth/") {
		return authScenario, true
	}
	return scenario{}, false
}

// run executes one scenario and returns the exit code; failures are one
// line on stderr.
func run(args []string, name string, stderr io.Writer) int {
	sc, ok := lookup(name)
	if !ok || len(args) == 0 {
		if !ok {
			fmt.Fprintf(stderr, "conformance: unknown scenario %q (MCP_CONFORMANCE_SCENARIO); known: %s\n",
				name, strings.Join(slices.Sorted(maps.Keys(scenarios)), ", "))
		} else {
			fmt.Fprintln(stderr, "usage: MCP_CONFORMANCE_SCENARIO=NAME conformance SERVER_URL")
		}
		return exitUsage
	}
	url := args[len(args)-1]
	ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
	defer cancel()
	if err := runScenario(ctx, sc, url, stderr); err != nil {
		fmt.Fprintf(stderr, "conformance: %s: %v\n", name, err)
		return exitFail
	}
	return exitOK
}

// runScenario starts a host with the suite's server, waits for it to
// connect, and runs the scenario.
func runScenario(ctx context.Context, sc scenario, url string, stderr io.Writer) error {
	opts := &host.Options{}
	if os.Getenv(envDebug) != "" {
		// The suite shows the client's output with its checks.
		opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if sc.elicitation {
		opts.Elicitation = func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		}
	}
	var oauth *config.OAuth
	if sc.auth {
		opts.Authorize = browse
		var err error
		if oauth, err = oauthConfig(os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Getenv("MCP_CONFORMANCE_CONTEXT")); err != nil {
			return err
		}
	}
	h := host.New(opts)
	defer h.Close()
	cfg := config.ServerConfig{
		OAuth: oauth,
		Name:  serverName,
		Type:  config.TransportHTTP, // the suite serves streamable HTTP
		URL:   url,
		// A dropped connection here is a failure to report, not to
		// recover from quietly.
		StartupTimeout: scenarioTimeout,
		Timeout:        scenarioTimeout,
		Source:         config.Source{Provider: "conformance", Level: config.LevelExplicit},
	}
	if err := h.Start(ctx, []config.ServerConfig{cfg}); err != nil {
		return err
	}
	if err := h.WaitSettled(ctx); err != nil {
		return err
	}
	for _, st := range h.Status() {
		if st.Name == serverName && st.State != host.StateConnected {
			return fmt.Errorf("server %s: %s", st.State, st.Error)
		}
	}
	return sc.run(ctx, h)
}

// clientMetadataURL is the client id the suite's authorization servers
// take as a client ID metadata document, in the scenarios that offer one.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// oauthConfig is the server's oauth config for a scenario's context
// (MCP_CONFORMANCE_CONTEXT, JSON): a pre-registered client when it names
// one, the client ID metadata document always (go-sdk uses it only where
// the authorization server says it takes one), dynamic registration else.
// The client credentials scenarios are machine-to-machine: the grant is
// client_credentials, with the context's client id and its secret or its
// private key.
func oauthConfig(name, raw string) (*config.OAuth, error) {
	o := &config.OAuth{ClientMetadataURL: clientMetadataURL}
	if raw == "" {
		return o, nil
	}
	var c map[string]any
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	o.ClientID, _ = c["client_id"].(string)
	o.ClientSecret, _ = c["client_secret"].(string)
	if o.ClientID == "" {
		o.ClientSecret = ""
	}
	if idToken, _ := c["idp_id_token"].(string); idToken != "" {
		// Enterprise-managed authorization: the context holds the ID
		// token the identity provider issued, as its login tool would.
		o.Grant, o.ClientMetadataURL = config.GrantEnterprise, ""
		o.IdentityProvider = &config.IdentityProvider{IDToken: idToken}
		o.IdentityProvider.Issuer, _ = c["idp_issuer"].(string)
		o.IdentityProvider.TokenEndpoint, _ = c["idp_token_endpoint"].(string)
		o.IdentityProvider.ClientID, _ = c["idp_client_id"].(string)
	}
	if strings.HasPrefix(name, "auth/client-credentials") {
		o.Grant, o.ClientMetadataURL = config.GrantClientCredentials, ""
		o.PrivateKey, _ = c["private_key_pem"].(string) // private_key_jwt
	}
	return o, nil
}

// browse is the person's browser in the auth scenarios: the suite's
// authorization endpoint approves at once with a redirect, which browse
// follows to the host's loopback callback.
func browse(ctx context.Context, _, authURL string) error {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(u string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp, nil
	}
	resp, err := get(authURL)
	if err != nil {
		return fmt.Errorf("authorization page: %w", err)
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return fmt.Errorf("authorization page answered %s without a redirect", resp.Status)
	}
	cb, err := get(loc)
	if err != nil {
		return fmt.Errorf("redirect: %w", err)
	}
	if cb.StatusCode != http.StatusOK {
		return fmt.Errorf("redirect to the callback answered %s", cb.Status)
	}
	return nil
}

// call calls a server tool by its exposed name and fails on an error
// result as well as on a protocol error.
func call(ctx context.Context, h *host.Host, tool string, args any) (*mcp.CallToolResult, error) {
	name, err := exposed(h, tool)
	if err != nil {
		return nil, err
	}
	res, err := h.CallTool(ctx, name, args)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, errors.New("tool " + tool + " returned an error: " + host.ResultText(res))
	}
	return res, nil
}

// exposed is the name the host exposes a server tool under.
func exposed(h *host.Host, tool string) (string, error) {
	var offered []string
	for _, t := range h.Tools().Tools {
		if t.Server == serverName && t.Tool == tool {
			return t.Name, nil
		}
		offered = append(offered, t.Tool)
	}
	return "", fmt.Errorf("tool %q not offered (tools: %v)", tool, offered)
}
