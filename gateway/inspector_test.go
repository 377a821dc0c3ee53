package gateway_test

// End-to-end: the MCP Inspector's CLI (PEERS.md), the protocol's reference
// debugging client, as a downstream client of `switchboard serve`, over
// stdio (it starts serve) and streamable HTTP, in both protocol eras, with
// the demo server and server-everything behind serve. Each run of the CLI
// is one request: it connects, asks, prints one JSON object and exits.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/procgroup"
	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// inspectorRunBound bounds one run of the CLI: node's start, over stdio
// serve's start with its two servers, and one request take one to two
// seconds here; a 2-core CI machine running every package's race tests
// is many times slower.
const inspectorRunBound = time.Minute

// inspectorRecheck is how often the wait for serve's prompts and
// resources lists them again besides on every list_changed: over
// streamable HTTP, a notification sent before the client's GET stream is
// open is lost (PEERS.md), and then only asking again sees the change.
const inspectorRecheck = 250 * time.Millisecond

// Exit codes of the CLI (its --help and source): a tool call whose result
// is an error exits 5, any other failure 1.
const (
	inspectorOK        = 0
	inspectorToolError = 5
)

func TestInspectorThroughServe(t *testing.T) {
	inspector, inspectorArgs := peers.InspectorCLI(t)
	everything, everythingArgs := peers.EverythingStdio(t)
	sb := tsBuildSwitchboard(t)
	e := newTSServe(t, sb, everything, everythingArgs)
	ins := &inspectorCLI{command: inspector, args: inspectorArgs, home: t.TempDir()}

	t.Run("stdio", func(t *testing.T) {
		// The CLI gives the server it starts only the SDK's default
		// environment (HOME, PATH, …) and what -e adds.
		var target []string
		for _, k := range slices.Sorted(maps.Keys(e.env())) {
			target = append(target, "-e", k+"="+e.env()[k])
		}
		target = append(append(append(target, "--", sb), e.globalArgs()...), "serve", "--standalone")
		// Only tools and calls: a one-shot client that lists prompts or
		// resources right after initialize gets none over stdio, since
		// serve lists them after the servers' tools (DESIGN.md F12, F25)
		// and tells the client by list_changed, which the CLI does not
		// wait for. The HTTP cases below ask once serve has them.
		for _, tc := range []inspectorCase{
			{name: "tools/list", args: []string{"--method", "tools/list"},
				check: inspectorTools("demo__echo", "demo__sleep", "everything__echo", "everything__get-sum")},
			{name: "call demo__echo", args: []string{"--method", "tools/call", "--tool-name", "demo__echo",
				"--tool-args-json", `{"text":"hello from the inspector"}`},
				check: inspectorText("hello from the inspector")},
			{name: "call everything__echo, modern era", args: []string{"--protocol-era", "modern", "--method", "tools/call",
				"--tool-name", "everything__echo", "--tool-arg", "message=modern over stdio"},
				check: inspectorText("Echo: modern over stdio")},
		} {
			t.Run(tc.name, func(t *testing.T) { ins.run(t, tc, target) })
		}
	})

	t.Run("http", func(t *testing.T) {
		url := e.startHTTP(t)
		awaitServeCatalog(t, url, "everything__args-prompt", "demo://readme")
		// An option, not the positional target: a variadic option before
		// it (--tool-arg, --prompt-args) would take the URL for its own.
		target := []string{"--server-url", url}
		for _, tc := range []inspectorCase{
			{name: "initialize, legacy era", args: []string{"--method", "initialize"},
				check: inspectorInit("2025-11-25")},
			{name: "initialize, modern era", args: []string{"--protocol-era", "modern", "--method", "initialize"},
				check: inspectorInit("2026-07-28")},
			{name: "tools/list", args: []string{"--method", "tools/list"},
				check: inspectorTools("demo__add", "demo__echo", "everything__echo", "everything__trigger-long-running-operation")},
			{name: "call everything__echo", args: []string{"--method", "tools/call", "--tool-name", "everything__echo",
				"--tool-arg", "message=hello over HTTP"},
				check: inspectorText("Echo: hello over HTTP")},
			{name: "call demo__echo, modern era", args: []string{"--protocol-era", "modern", "--method", "tools/call",
				"--tool-name", "demo__echo", "--tool-args-json", `{"text":"modern over HTTP"}`},
				check: inspectorText("modern over HTTP")},
			{name: "call demo__add", args: []string{"--method", "tools/call", "--tool-name", "demo__add",
				"--tool-args-json", `{"a":2,"b":3}`},
				check: func(t *testing.T, res json.RawMessage) {
					var r struct{ StructuredContent struct{ Sum float64 } }
					inspectorDecode(t, res, &r)
					if r.StructuredContent.Sum != 5 {
						t.Errorf("demo__add 2+3: structured content %s, want sum 5", res)
					}
				}},
			{name: "call demo__fail", args: []string{"--method", "tools/call", "--tool-name", "demo__fail",
				"--tool-args-json", `{"message":"failing on purpose"}`},
				code: inspectorToolError,
				check: func(t *testing.T, res json.RawMessage) {
					var r struct {
						IsError bool
						Content []struct{ Text string }
					}
					inspectorDecode(t, res, &r)
					if !r.IsError || len(r.Content) != 1 || r.Content[0].Text != "failing on purpose" {
						t.Errorf("demo__fail: want an error result with the message, got %s", res)
					}
				}},
			{name: "prompts/list", args: []string{"--method", "prompts/list"},
				check: inspectorNames("prompts", "name", "demo__greet", "everything__args-prompt", "everything__simple-prompt")},
			{name: "prompts/get", args: []string{"--method", "prompts/get", "--prompt-name", "everything__args-prompt",
				"--prompt-args", "city=Paris", "state=TX"},
				check: func(t *testing.T, res json.RawMessage) {
					var r struct {
						Messages []struct{ Content struct{ Text string } }
					}
					inspectorDecode(t, res, &r)
					if len(r.Messages) != 1 || r.Messages[0].Content.Text != "What's weather in Paris, TX?" {
						t.Errorf("everything__args-prompt: %s", res)
					}
				}},
			{name: "resources/list", args: []string{"--method", "resources/list"},
				check: inspectorNames("resources", "uri", "demo://readme", "demo://resource/static/document/architecture.md")},
			{name: "resources/templates/list", args: []string{"--method", "resources/templates/list"},
				check: inspectorNames("resourceTemplates", "uriTemplate", "demo://resource/dynamic/text/{resourceId}")},
			{name: "resources/read", args: []string{"--method", "resources/read", "--uri", "demo://readme"},
				check: func(t *testing.T, res json.RawMessage) {
					var r struct {
						Contents []struct{ URI, Text string }
					}
					inspectorDecode(t, res, &r)
					if len(r.Contents) != 1 || r.Contents[0].URI != "demo://readme" ||
						!strings.HasPrefix(r.Contents[0].Text, "# switchboard demo server") {
						t.Errorf("demo://readme: %s", res)
					}
				}},
			{name: "logging/setLevel", args: []string{"--method", "logging/setLevel", "--log-level", "debug"},
				check: func(t *testing.T, res json.RawMessage) {
					if string(res) != "{}" {
						t.Errorf("logging/setLevel: want an empty result, got %s", res)
					}
				}},
		} {
			t.Run(tc.name, func(t *testing.T) { ins.run(t, tc, target) })
		}
	})
}

// inspectorCLI runs the Inspector's CLI with a home folder of its own, so
// nothing of the user's (~/.mcp-inspector) is read or written.
type inspectorCLI struct {
	command string
	args    []string
	home    string
}

// inspectorCase is one run: the CLI's options, the exit code it should
// end with, and a check of the result it prints.
type inspectorCase struct {
	name  string
	args  []string
	code  int
	check func(t *testing.T, result json.RawMessage)
}

// run runs tc against target (the CLI's last arguments) under
// inspectorRunBound, in a process group of its own that is killed if the
// run outlives its bound, and checks the one JSON object it prints.
func (c *inspectorCLI) run(t *testing.T, tc inspectorCase, target []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), inspectorRunBound)
	defer cancel()
	args := append(append(append(slices.Clone(c.args), "--format", "json"), tc.args...), target...)
	cmd := exec.Command(c.command, args...)
	cmd.Env = append(os.Environ(),
		"HOME="+c.home,
		"MCP_CATALOG_PATH="+filepath.Join(c.home, "catalog.json"),
		"MCP_CLIENT_CONFIG_PATH="+filepath.Join(c.home, "client.json"))
	var stdout, stderr tsLog
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = tsExitBound // a stdio serve that kept the pipes open
	procgroup.Set(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := context.AfterFunc(ctx, func() { _ = procgroup.Kill(cmd.Process.Pid) })
	defer stop()
	err := cmd.Wait()
	t.Logf("inspector %s: %v", strings.Join(tc.args, " "), time.Since(start).Round(time.Millisecond))
	defer func() {
		if t.Failed() {
			t.Logf("inspector stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
		}
	}()
	if ctx.Err() != nil {
		t.Fatalf("the inspector did not finish in %v", inspectorRunBound)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != tc.code {
		t.Errorf("exit code %d, want %d", code, tc.code)
	}
	var out struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(bytes.TrimSpace([]byte(stdout.String())), &out); err != nil || out.Result == nil {
		t.Fatalf("stdout is not one JSON object with a result: %v", err)
	}
	tc.check(t, out.Result)
}

// awaitServeCatalog waits until serve at url lists the prompt and the
// resource: they come after the servers' tools, each announced by a
// list_changed. It asks with a go-sdk client of its own, which it closes.
func awaitServeCatalog(t *testing.T, url, prompt, uri string) {
	t.Helper()
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "inspector-test", Version: "0"}, &mcp.ClientOptions{
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { poke() },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { poke() },
	})
	ctx, cancel := context.WithTimeout(t.Context(), tsRunBound)
	defer cancel()
	sess, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect to serve at %s: %v", url, err)
	}
	defer sess.Close()
	recheck := time.NewTicker(inspectorRecheck)
	defer recheck.Stop()
	for {
		ps, err := sess.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		rs, err := sess.ListResources(ctx, nil)
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		if slices.ContainsFunc(ps.Prompts, func(p *mcp.Prompt) bool { return p.Name == prompt }) &&
			slices.ContainsFunc(rs.Resources, func(r *mcp.Resource) bool { return r.URI == uri }) {
			return
		}
		select {
		case <-changed:
		case <-recheck.C:
		case <-ctx.Done():
			t.Fatalf("serve did not list prompt %s and resource %s within %v", prompt, uri, tsRunBound)
		}
	}
}

func inspectorInit(version string) func(*testing.T, json.RawMessage) {
	return func(t *testing.T, res json.RawMessage) {
		var r struct {
			ProtocolVersion string
			ServerInfo      struct{ Name string }
		}
		inspectorDecode(t, res, &r)
		if r.ProtocolVersion != version || r.ServerInfo.Name != "switchboard" {
			t.Errorf("initialize: want switchboard speaking %s, got %s", version, res)
		}
	}
}

func inspectorTools(names ...string) func(*testing.T, json.RawMessage) {
	return inspectorNames("tools", "name", names...)
}

// inspectorNames checks that the result's list under key has an entry whose
// field is each of names.
func inspectorNames(key, field string, names ...string) func(*testing.T, json.RawMessage) {
	return func(t *testing.T, res json.RawMessage) {
		var r map[string][]map[string]any
		inspectorDecode(t, res, &r)
		var got []string
		for _, entry := range r[key] {
			if s, ok := entry[field].(string); ok {
				got = append(got, s)
			}
		}
		slices.Sort(got)
		for _, n := range names {
			if !slices.Contains(got, n) {
				t.Errorf("%s has no %s %s: %v", key, field, n, got)
			}
		}
	}
}

// inspectorText checks a call's result: not an error, one text block of text.
func inspectorText(text string) func(*testing.T, json.RawMessage) {
	return func(t *testing.T, res json.RawMessage) {
		var r struct {
			IsError bool
			Content []struct{ Type, Text string }
		}
		inspectorDecode(t, res, &r)
		if r.IsError || len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != text {
			t.Errorf("want one text block %q, got %s", text, res)
		}
	}
}

func inspectorDecode(t *testing.T, res json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(res, v); err != nil {
		t.Fatalf("result %s: %v", res, err)
	}
}
