package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/demoserver"
	"github.com/switchboard-mcp/switchboard/host"
)

// embed is the README's library example, line for line
// (TestREADMELibrary): an agent's whole use of the library.
func embed(ctx context.Context, configFile, cacheDir string) error {
	// Read the configs. Nil options read every tool's files as the
	// command line does (with the demo standing in when there are none);
	// Files names yours alone.
	opts := &app.LoadOptions{Files: []string{configFile}}
	loaded, err := app.Load(ctx, opts)
	if err != nil {
		return err
	}
	h := host.New(&host.Options{CacheDir: cacheDir, UntrustedProject: loaded.UntrustedProject})
	defer h.Close()
	sub := h.Subscribe() // state changes, tool-set changes, logs, progress, …
	defer sub.Close()
	if err := h.Start(ctx, loaded.Servers); err != nil {
		return err
	}
	fmt.Println(len(h.Tools().Tools), "tools")

	out, err := h.CallTool(ctx, "mcp__demo__echo", map[string]any{"text": "hi"})
	if err != nil {
		return err
	}
	fmt.Println(host.ResultText(out))

	// A subagent's window, with its own name and handlers.
	v := h.ViewWith(host.ViewFilter{Servers: []string{"demo"}}, &host.ViewOptions{Name: "coder"})
	fmt.Println(len(v.Tools().Tools), "tools for", v.Name())

	// After a config change (app.Options.Reload does this for you):
	// read again, and restart only what changed.
	if loaded, err = app.Load(ctx, opts); err != nil {
		return err
	}
	diff, err := h.Reload(ctx, loaded.Servers)
	fmt.Println(len(diff.Changed), "restarted")
	return err
}

// The README's library example, run against the demo server (TestMain
// serves it: demoserver.Serving, Run) in a config file of its own.
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "switchboard-readme-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	srv, err := demoserver.Config("demo")
	if err != nil {
		log.Fatal(err)
	}
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"demo": map[string]any{"command": srv.Command, "args": srv.Args, "env": srv.Env}}})
	configFile := filepath.Join(dir, "switchboard.json")
	if err := os.WriteFile(configFile, doc, 0o600); err != nil {
		log.Fatal(err)
	}
	if err := embed(context.Background(), configFile, filepath.Join(dir, "cache")); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 8 tools
	// hi
	// 8 tools for coder
	// 0 restarted
}

// TestREADMELibrary: the README's library example is embed's body, so it
// compiles and runs (ExampleLoad).
func TestREADMELibrary(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\n## Library\n.*?```go\n(.*?)```\n").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no go block under ## Library")
	}
	fset := token.NewFileSet()
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(fset, "readme_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var body string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "embed" {
			inner := src[fset.Position(fn.Body.Lbrace).Offset+2 : fset.Position(fn.Body.Rbrace).Offset]
			for line := range strings.Lines(string(inner)) {
				body += strings.TrimPrefix(line, "\t")
			}
		}
	}
	if diff := cmp.Diff(body, string(m[1])); diff != "" {
		t.Errorf("README.md's library example is not embed's body in app/readme_test.go (-embed +README):\n%s", diff)
	}
}
