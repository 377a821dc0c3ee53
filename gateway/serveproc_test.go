package gateway_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// TestTSClientListsEverySchema: every tool serve advertises passes the
// TypeScript SDK's own validation of tools/list, whose failure on one tool
// leaves a client with none: search_tools' output schema (once an array)
// under --tool-search, and an upstream's schemas that are valid JSON
// Schema the SDK refuses (boolean properties, a required entry that is no
// name, an output schema that is no object).
func TestTSClientListsEverySchema(t *testing.T) {
	node := peers.Node(t)
	script := tsClientScript(t)
	everything, everythingArgs := peers.EverythingStdio(t)
	sb := tsBuildSwitchboard(t)
	for _, tc := range []struct {
		name  string
		flags []string
		want  []string
	}{
		{"all tools", nil, []string{"odd__odd_schemas", "odd__echo", "demo__echo"}},
		{"tool search", []string{"--tool-search"}, []string{"search_tools", "describe_tool", "call_tool"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTSServe(t, sb, everything, everythingArgs)
			odd := e.demo("odd")
			odd["args"] = append(odd["args"].([]string), "--odd-schemas")
			e.servers["odd"] = odd
			e.writeConfig(t)
			spec, _ := json.Marshal(map[string]any{
				"command": sb,
				"args":    append(append(e.globalArgs(), "serve", "--standalone"), tc.flags...),
				"env":     e.env(),
			})
			steps := runTSClient(t, node, []string{script, "--list", "--stdio", string(spec)}, nil)
			list := steps.one(t, "list")
			if !list.bool("ok") {
				t.Fatalf("tools/list through the TypeScript SDK failed: %v", list)
			}
			for _, want := range tc.want {
				if !slices.Contains(list.strings("tools"), want) {
					t.Errorf("tools/list has no %s: %v", want, list.strings("tools"))
				}
			}
		})
	}
}

// TestServeTokenFile: serve --http --token-file requires the file's token
// of every request, and the token is not in serve's command line.
func TestServeTokenFile(t *testing.T) {
	peers.Node(t) // the config's everything server is the npm peer's
	everything, everythingArgs := peers.EverythingStdio(t)
	sb := tsBuildSwitchboard(t)
	e := newTSServe(t, sb, everything, everythingArgs)
	const token = "tok-file-6b1f0e9d8c7a"
	file := filepath.Join(e.dir, "token")
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url := e.startHTTP(t, "--token-file", file)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct {
		auth string
		want int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"Bearer " + token, http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Authorization %q: %d, want %d", tc.auth, resp.StatusCode, tc.want)
		}
	}
}
