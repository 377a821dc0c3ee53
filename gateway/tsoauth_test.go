package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testkit/idptest"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// The TypeScript SDK's OAuth client completes the whole flow against
// `switchboard serve --http --auth-issuer`: the 401's resource_metadata,
// the metadata, the authorization server's discovery, registration, PKCE
// S256 with the gateway as the resource, the token, then a tool call. The
// shared token ($SWITCHBOARD_TOKEN) works beside it, and /metrics (behind
// either, promtool-clean) counts the client's first, tokenless request as
// a refusal.
func TestTSClientOAuth(t *testing.T) {
	node := peers.Node(t)
	promtool := peers.Promtool(t)
	script := tsScriptBesidePeers(t, "oauth-client.mjs")
	idp := idptest.New(t, idptest.Options{User: idptest.User{Subject: "carol", Groups: []string{"dev"}}})
	t.Setenv("SWITCHBOARD_TOKEN", "shared-token-41d7")

	sb := tsBuildSwitchboard(t)
	e := newTSServe(t, sb, "", nil)
	delete(e.servers, "everything") // the demo alone: no npm peer
	e.writeConfig(t)
	url := e.startHTTP(t, "--auth-issuer", idp.Issuer)

	steps := runTSClient(t, node, []string{script, "--url", url, "--call", "demo__echo", "--args", `{"text":"hi from carol"}`}, nil)
	connect := steps.one(t, "connect")
	var authz struct {
		Registered, Token             bool
		Resource, CodeChallengeMethod string
	}
	b, _ := json.Marshal(connect["authorize"])
	if err := json.Unmarshal(b, &authz); err != nil {
		t.Fatal(err)
	}
	if !authz.Registered || !authz.Token || authz.Resource != url || authz.CodeChallengeMethod != "S256" {
		t.Errorf("authorization: %+v; want a registered client, a token, PKCE S256 and resource %s", authz, url)
	}
	if call := steps.call(t, "demo__echo"); !call.bool("ok") || call.str("text") != "hi from carol" {
		t.Errorf("call: %v", call)
	}
	if list := steps.one(t, "list"); !slices.Contains(list.strings("tools"), "demo__echo") {
		t.Errorf("tools: %v", list)
	}
	if st := idp.Stats(); st.Registrations != 1 || st.Authorizations != 1 || st.Tokens != 1 || st.KeyFetches != 1 {
		t.Errorf("authorization server: %+v; want one registration, authorization, token and key fetch", st)
	}

	metrics := strings.TrimSuffix(url, "/mcp") + "/metrics"
	get := func(token string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, metrics, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, _ := get(""); code != http.StatusUnauthorized {
		t.Errorf("/metrics without a token: %d, want 401", code)
	}
	for _, tok := range []string{"shared-token-41d7", idp.Mint(idptest.Mint{Audience: []string{url}})} {
		code, body := get(tok)
		m := regexp.MustCompile(`(?m)^switchboard_auth_refusals_total\{reason="no_token"\} (\d+)$`).FindStringSubmatch(body)
		if code != http.StatusOK || m == nil {
			t.Fatalf("/metrics: %d, no no_token refusals in:\n%.2000s", code, body)
		}
		// The TS client's first request, and ours above.
		if n, _ := strconv.Atoi(m[1]); n < 2 {
			t.Errorf("no_token refusals %d, want at least 2", n)
		}
		check := exec.Command(promtool, "check", "metrics")
		check.Stdin = strings.NewReader(body)
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	}
	http.DefaultClient.CloseIdleConnections()
}

// tsScriptBesidePeers is test/peers/NAME of this module, where node finds
// the peers' SDK: beside the peers' node_modules when that is this
// module's (make test), else a copy in a folder whose node_modules links
// to them (the peers installed in another checkout).
func tsScriptBesidePeers(t *testing.T, name string) string {
	t.Helper()
	own, err := filepath.Abs(filepath.Join("..", "test", "peers", name))
	if err != nil {
		t.Fatal(err)
	}
	modules := peers.Dir(t)
	if filepath.Dir(modules) == filepath.Dir(own) {
		return own
	}
	data, err := os.ReadFile(own)
	if err != nil {
		t.Fatalf("the TypeScript client: %v", err)
	}
	dir := t.TempDir()
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
