package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// templated is an HTTP MCP server, named name, with resource templates
// that answer every read with "<name>: <uri>".
func templated(t *testing.T, name string, tpls ...string) config.ServerConfig {
	t.Helper()
	srv := demo.NewServer(demo.Options{Name: name})
	for _, tpl := range tpls {
		srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "t", URITemplate: tpl}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: name + ": " + req.Params.URI}}}, nil
		})
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		for ss := range srv.Sessions() {
			ss.Close()
		}
	})
	return config.ServerConfig{Name: name, Type: config.TransportHTTP, URL: ts.URL,
		Source: config.Source{Provider: "test", Path: "capture_test.go", Level: config.LevelExplicit}}
}

// A read goes to the server whose template matches the URI most closely,
// ties to the server first in the configs' order, never to one whose
// template merely sorts first (file:///{+a} took the reads of another
// server's file:///{+path}); a template of the gateway's own URIs
// (switchboard://results/…) captures none of its kept results.
func TestTemplatesDoNotCapture(t *testing.T) {
	files := templated(t, "files", "file:///{+path}")
	// "aaa" comes after files, but its name and templates sort first, and
	// they match everything.
	greedy := templated(t, "aaa", "file:///{+a}", "switchboard://results/{+a}", "{+any}")
	deep := templated(t, "deep", "file:///srv/{+p}")
	s := serveWith(t, &gateway.Options{MaxResultText: 10}, gateway.HTTPOptions{}, files, greedy, deep)
	ctx := context.Background()
	sess := s.client(t, "", nil)
	read := func(uri string) (string, error) {
		res, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return "", err
		}
		return res.Contents[0].Text, nil
	}
	for uri, want := range map[string]string{
		"file:///etc/hostname": "files", // a tie: the first server's
		"file:///srv/data.txt": "deep",  // the closest match, though last
		"mail://inbox":         "aaa",   // the only template that matches
	} {
		if got, err := read(uri); err != nil || got != want+": "+uri {
			t.Errorf("%s read %q, %v; want %s's", uri, got, err, want)
		}
	}
	// A cut result is kept under switchboard://results/ID: the gateway's.
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "files__echo", Arguments: map[string]any{"text": "a long text, cut to ten bytes"}})
	if err != nil {
		t.Fatal(err)
	}
	var uri string
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			uri = l.URI
		}
	}
	if !strings.HasPrefix(uri, "switchboard://results/") {
		t.Fatalf("no kept result linked: %+v", res.Content)
	}
	if got, err := read(uri); err != nil || got != "a long text, cut to ten bytes" {
		t.Errorf("%s read %q, %v; want the kept result", uri, got, err)
	}
	if got, err := read("switchboard://results/nosuch"); err == nil {
		t.Errorf("switchboard://results/nosuch read %q from a server", got)
	}
	tpls, err := sess.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tpl := range tpls.ResourceTemplates {
		if tpl.URITemplate == "switchboard://results/{+a}" {
			t.Errorf("a server's template of the gateway's own URIs is listed")
		}
	}
}
