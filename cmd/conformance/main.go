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

var scenarios = map[string]scenario{
	// The suite checks the initialize request; the host lists what the
	// server advertises right after it (here: nothing).
	"initialize": {run: func(ctx context.Context, h *host.Host) error { return nil }},
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
func call(ctx context.Context, h *host.Host, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	name := ""
	var offered []string
	for _, t := range h.Tools().Tools {
		if t.Server == serverName && t.Tool == tool {
			name = t.Name
		}
		offered = append(offered, t.Tool)
	}
	if name == "" {
		return nil, fmt.Errorf("tool %q not offered (tools: %v)", tool, offered)
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
