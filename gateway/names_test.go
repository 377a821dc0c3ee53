package gateway_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// The gateway's prompt and resource names are the host's: a prompt is
// listed under the name the host gives it (valid, from a server name with
// a dot), and its get and completion reach the server the host resolves
// it to; a URI two servers list is read from the server the host says
// owns it, which keeps it when a server that sorts first arrives.
func TestNamesAreTheHosts(t *testing.T) {
	b, _ := downable(t, "b", "from b")
	a, _ := downable(t, "a", "from a")
	dotted := demoServer(t, "my.server")
	s := serve(t, gateway.HTTPOptions{}, dotted, b)
	ctx := context.Background()
	sess := s.client(t, "", nil)

	res, err := sess.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed, want []string
	for _, p := range res.Prompts {
		listed = append(listed, p.Name)
	}
	for _, p := range s.h.Prompts() {
		want = append(want, p.Exposed)
	}
	slices.Sort(listed)
	slices.Sort(want)
	if !slices.Equal(listed, want) || !slices.Contains(listed, "my_server__greet") {
		t.Errorf("prompts listed %v; want the host's names %v, my_server__greet among them", listed, want)
	}
	got, err := sess.GetPrompt(ctx, &mcp.GetPromptParams{Name: "my_server__greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil || len(got.Messages) != 1 {
		t.Errorf("get my_server__greet: %v %v", got, err)
	}
	// The demo server has no completion: its "method not found" says the
	// request reached it, where a name the gateway did not know would be
	// its own "unknown prompt".
	if _, err := sess.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "my_server__greet"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "A"},
	}); err == nil || !strings.Contains(err.Error(), "method not found") {
		t.Errorf("complete my_server__greet: %v; want the demo server's method not found", err)
	}

	readme := func(sess *mcp.ClientSession) string {
		t.Helper()
		res, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: demo.ReadmeURI})
		if err != nil || len(res.Contents) == 0 {
			t.Fatalf("read %s: %v %v", demo.ReadmeURI, res, err)
		}
		return res.Contents[0].Text
	}
	if text := readme(s.client(t, "?servers=b", nil)); text != "from b" {
		t.Errorf("?servers=b reads %q, want b's", text)
	}
	// a sorts before b and lists the same URI: b, which owns it, keeps it.
	if _, err := s.h.Reload(ctx, []config.ServerConfig{dotted, b, a}); err != nil {
		t.Fatal(err)
	}
	if err := s.h.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	if ref, ok := s.h.Resolve(host.KindResource, demo.ReadmeURI); !ok || ref.Server != "b" {
		t.Fatalf("the host gives %s to %+v, %v; want b", demo.ReadmeURI, ref, ok)
	}
	both := s.client(t, "?servers=a,b", nil) // a new view, synced now
	if text := readme(both); text != "from b" {
		t.Errorf("?servers=a,b reads %q, want b's: the host's owner", text)
	}
	rs, err := both.ListResources(ctx, nil)
	if err != nil || len(rs.Resources) != 1 {
		t.Errorf("?servers=a,b lists %v, %v; want the one URI once", rs, err)
	}
}
