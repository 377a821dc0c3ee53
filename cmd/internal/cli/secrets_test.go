package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/cmd/internal/cli"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// TestNoSecretInAnyOutput runs every command the README lists against a
// config full of secrets — env values, "!command" outputs, substituted
// variables, headers, a url query, url userinfo — with servers that quote
// them back (a server that prints its environment and exits, HTTP servers
// that answer 403 quoting the request's url and Authorization header), and
// checks that no secret is in any stdout or stderr, nor in the tool cache
// on disk (DESIGN.md F44).
func TestNoSecretInAnyOutput(t *testing.T) {
	const (
		plain       = "e2e-plain-token-1a2b"
		helperOut   = "e2e-helper-output-3c4d" // printed by a "!command"
		viaVar      = "e2e-var-token-5e6f"     // ${E2E_VAR} in an env value
		argVar      = "e2e-arg-secret-7a8b"    // ${E2E_ARG} in an argument
		query       = "e2e-query-key-9c0d"     // ${E2E_QUERY} in a url's query
		bearer      = "e2e-bearer-token-1e2f"  // ${E2E_BEARER} in a header
		headerOut   = "e2e-header-helper-3a4b" // a header's "!command"
		user, pass  = "e2e-user-5c6d", "e2e-pass-7e8f"
		literal     = "e2e-literal-key-0f1e" // in a url whose error quotes it
		mask        = "«redacted»"
		asCLIEnvVar = asCLI
	)
	secrets := []string{plain, helperOut, viaVar, argVar, query, bearer, headerOut, user, pass, literal,
		base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))}

	srv := httptest.NewServer(quotingServer())
	t.Cleanup(srv.Close) // after every host: an event stream holds a connection
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		asCLIEnvVar: "1", "TOKEN": plain, "HELPER": "!printf '%s%s' e2e-helper- output-3c4d",
		"VIA_VAR": "${E2E_VAR}", "DEBUG": "true",
	}
	servers := map[string]any{
		"demo":   map[string]any{"command": exe, "args": []string{"demo-server", "--slow-when", "/nonexistent/${E2E_ARG}"}, "env": env},
		"dumper": map[string]any{"command": exe, "args": []string{"demo-server", "--dump-env"}, "env": env},
		"query":  map[string]any{"type": "http", "url": srv.URL + "/deny?api_key=${E2E_QUERY}&v=1"},
		"header": map[string]any{"type": "http", "url": srv.URL + "/mcp", "headers": map[string]string{
			"Authorization": "Bearer ${E2E_BEARER}", "X-Api-Key": "!printf '%s%s' e2e-header- helper-3a4b"}},
		"userinfo": map[string]any{"type": "http", "url": strings.Replace(srv.URL, "http://", "http://"+user+":"+pass+"@", 1) + "/deny"},
		// A typo: the substitution error quotes the rest of the url, which
		// discovery reports before any host sees it.
		"typo": map[string]any{"type": "http", "url": srv.URL + "/deny?v=${E2E_TYPO&api_key=" + literal},
	}
	connecting := len(servers) - 1 // the typo never starts
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "mcp.json")
	writeFile(t, cfg, string(data))
	home, cache := filepath.Join(dir, "home"), filepath.Join(dir, "cache")
	vars := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_CACHE_HOME": cache,
		"XDG_STATE_HOME": filepath.Join(home, ".state"), "NO_COLOR": "1",
		"E2E_VAR": viaVar, "E2E_ARG": argVar, "E2E_QUERY": query, "E2E_BEARER": bearer,
	}
	stdio := func(out, errOut io.Writer) cli.IO {
		return cli.IO{
			In: strings.NewReader(""), Out: out, Err: errOut,
			Getenv:    func(k string) string { return vars[k] },
			LookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
		}
	}

	type ran struct {
		args           []string
		stdout, stderr string
	}
	var runs []ran
	run := func(wantCode int, args ...string) ran {
		t.Helper()
		var out, errOut bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), watchBound)
		defer cancel()
		code := cli.Run(ctx, append([]string{"--config", cfg}, args...), stdio(&out, &errOut))
		r := ran{args, out.String(), errOut.String()}
		runs = append(runs, r)
		if code != wantCode {
			t.Errorf("switchboard %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, wantCode, r.stdout, r.stderr)
		}
		return r
	}

	status := run(1)
	// Servers fail here (some on purpose, with secrets in their errors):
	// list, a health check, says so with exit 1.
	list := run(1, "list", "--json", "--wait")
	run(1, "list", "--wait")
	run(0, "tools")
	run(0, "tools", "--json")
	run(0, "call", "mcp__demo__echo", "text=hello")
	denied := run(1, "call", "mcp__header__echo", "text=hello")
	run(0, "resources")
	run(0, "read", "demo://readme", "--server", "demo")
	run(0, "prompts")
	run(0, "prompt", "demo/greet", "name=Ada")
	// dumper fails: logs prints its lines, then its error, exit 1.
	logs := run(1, "logs", "dumper")
	run(1, "logs", "dumper", "--json")
	// So does tools of a failed server, whose error quotes its url.
	toolsDown := run(1, "tools", "query")
	run(0, "sources")
	sources := run(0, "sources", "--json")
	verbose := run(1, "-v", "list", "--wait")

	// watch --json, until every server has settled, then Ctrl-C.
	var watchOut syncBuffer
	pr, pw := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), watchBound)
	done := make(chan int, 1)
	go func() {
		defer pw.Close()
		done <- cli.Run(ctx, []string{"--config", cfg, "watch", "--json"}, stdio(pw, &watchOut))
	}()
	settled := map[string]bool{}
	sc := bufio.NewScanner(pr)
	sc.Buffer(nil, 1<<20)
	for len(settled) < connecting && sc.Scan() {
		watchOut.Write(append(sc.Bytes(), '\n'))
		var e struct{ Type, Server, State string }
		// The typo's failed line comes from discovery, not a connect: it
		// does not count among the servers that settle.
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Type == "state" && e.Server != "typo" && (e.State == "connected" || e.State == "failed") {
			settled[e.Server] = true
		}
	}
	cancel()
	for sc.Scan() { // what it prints while it stops
		watchOut.Write(append(sc.Bytes(), '\n'))
	}
	// The interrupt may come before the host's Start has returned (its
	// last server settled, Start not yet back): that is 130, not 0.
	if code := <-done; code != 0 && code != 130 {
		t.Errorf("watch exited %d", code)
	}
	if len(settled) < connecting {
		t.Errorf("watch ended before every server settled: %v", settled)
	}
	runs = append(runs, ran{[]string{"watch", "--json"}, watchOut.String(), ""})

	for _, r := range runs {
		for _, s := range secrets {
			for stream, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
				if strings.Contains(text, s) {
					t.Errorf("switchboard %s: %s holds %q:\n%s", strings.Join(r.args, " "), stream, s, text)
				}
			}
		}
	}
	err = filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("the tool cache file %s holds %q", path, s)
			}
		}
		return err
	})
	if err != nil {
		t.Errorf("reading the tool cache: %v", err)
	}

	// The outputs still say what went wrong, with the secrets masked.
	for _, want := range []struct {
		what, text, sub string
	}{
		{"status", status.stdout, "api_key=" + mask + "&v=1"},
		{"status", status.stdout, "TOKEN=" + mask},
		{"status", status.stdout, "DEBUG=true"},
		{"list --json", list.stdout, "Authorization: Basic " + mask},
		{"call", denied.stderr, "Authorization: Bearer " + mask},
		{"logs", logs.stdout, "env: HELPER=" + mask},
		{"logs", logs.stdout, "env: VIA_VAR=" + mask},
		{"logs", logs.stderr, `server "dumper" is failed: `},
		{"logs", logs.stderr, "TOKEN=" + mask},
		{"tools query", toolsDown.stderr, "api_key=" + mask},
		{"-v", verbose.stderr, "api_key=" + mask},
		{"sources --json", sources.stdout, "api_key=" + mask},
		{"watch", watchOut.String(), "TOKEN=" + mask},
	} {
		if !strings.Contains(want.text, want.sub) {
			t.Errorf("%s should show %q:\n%s", want.what, want.sub, want.text)
		}
	}
}

// quotingServer answers what issue 9's servers answered: /deny refuses
// every request with a 403 whose JSON-RPC error quotes the url and the
// Authorization header it got; /mcp is the demo server, except that a tool
// call is refused the same way.
func quotingServer() http.Handler {
	demoHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return demo.NewServer(demo.Options{}) }, nil)
	deny := func(w http.ResponseWriter, r *http.Request, id any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		idJSON, _ := json.Marshal(id)
		msg := fmt.Sprintf("forbidden: %s with Authorization: %s", r.URL, r.Header.Get("Authorization"))
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":%q}}`, idJSON, msg)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		if r.URL.Path == "/deny" || msg.Method == "tools/call" {
			deny(w, r, msg.ID)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		demoHandler.ServeHTTP(w, r)
	})
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
