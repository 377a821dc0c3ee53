package host_test

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// The host owns every exposed name (DESIGN.md F20): a tool's and a
// prompt's, made valid from a server name with a dot, resolve to (server,
// name) and back; a resource's URI, which both servers list, names the
// first one's. All of them stay across a reconnect, the URI too, though
// the other server lists it while the first is away.
func TestNamesOwnedByHost(t *testing.T) {
	h := host.New(nil)
	defer h.Close()
	g := holdAttempts(h, "my.server")
	ctx := context.Background()
	if err := h.Start(ctx, []config.ServerConfig{demoServer(t, "my.server"), demoServer(t, "other")}); err != nil {
		t.Fatal(err)
	}
	if err := h.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind    host.Kind
		exposed string
		ref     host.Ref
	}{
		{host.KindTool, "mcp__my_server__echo", host.Ref{Server: "my.server", Name: "echo"}},
		{host.KindPrompt, "mcp__my_server__greet", host.Ref{Server: "my.server", Name: "greet"}},
		{host.KindPrompt, "mcp__other__greet", host.Ref{Server: "other", Name: "greet"}},
		{host.KindResource, demo.ReadmeURI, host.Ref{Server: "my.server", Name: demo.ReadmeURI}},
	}
	check := func(when string) {
		t.Helper()
		for _, w := range want {
			if ref, ok := h.Resolve(w.kind, w.exposed); !ok || ref != w.ref {
				t.Errorf("%s: Resolve(%s, %q) = %+v, %v; want %+v", when, w.kind, w.exposed, ref, ok, w.ref)
			}
			if exposed, ok := h.Exposed(w.kind, w.ref); !ok || exposed != w.exposed {
				t.Errorf("%s: Exposed(%s, %+v) = %q, %v; want %q", when, w.kind, w.ref, exposed, ok, w.exposed)
			}
		}
		for _, p := range h.Prompts() {
			if ref, _ := h.Resolve(host.KindPrompt, p.Exposed); ref != (host.Ref{Server: p.Server, Name: p.Name}) {
				t.Errorf("%s: prompt %s/%s listed as %q, which resolves to %+v", when, p.Server, p.Name, p.Exposed, ref)
			}
		}
	}
	check("at start")

	sub := h.Subscribe()
	defer sub.Close()
	g.hold.Store(true) // the reconnect waits until the names were read meanwhile
	if err := syscall.Kill(status(t, h, "my.server").PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	awaitState(t, sub, "my.server", host.StateConnecting)
	if ref, ok := h.Resolve(host.KindResource, demo.ReadmeURI); ok && ref.Server != "my.server" {
		t.Errorf("while my.server is away, its URI moved to %q", ref.Server)
	}
	// Its last list stands in, deferred (a get waits for it), as its tools do.
	if ref, ok := h.Resolve(host.KindPrompt, "mcp__my_server__greet"); !ok || ref.Server != "my.server" {
		t.Errorf("a prompt of a server that is away resolves to %+v (%v), want still its own", ref, ok)
	}
	close(g.release)
	awaitState(t, sub, "my.server", host.StateConnected)
	if err := h.WaitListed(ctx); err != nil {
		t.Fatal(err)
	}
	check("after a reconnect")

	// A view resolves what it shows, and nothing else.
	v := h.View(host.ViewFilter{Servers: []string{"other"}})
	if _, ok := v.Resolve(host.KindPrompt, "mcp__my_server__greet"); ok {
		t.Error("a view of other resolves my.server's prompt")
	}
	if rs, _ := v.Resources(); len(rs) != 0 {
		t.Errorf("a view of other exposes %+v; the URI is my.server's", rs)
	}
	if rs, _ := h.View(host.ViewFilter{Servers: []string{"my.server"}}).Resources(); len(rs) != 1 || rs[0].Server != "my.server" {
		t.Errorf("a view of my.server exposes %+v; want its readme", rs)
	}
}

// Find takes every name a person sees of a tool or prompt: the exposed
// name, the other prefix's or none, server/name, and a server's own name
// when no other has it. A slip gets "did you mean"; an ambiguous own name
// lists what it names; a name of a server that knows no tools says why.
func TestFind(t *testing.T) {
	broken := demoServer(t, "broken.one")
	broken.Command = "/nonexistent/switchboard-demo"
	h := start(t, nil, demoServer(t, "my.server", "--test-tools"), demoServer(t, "other"), broken)
	if err := h.WaitSettled(context.Background()); err != nil {
		t.Fatal(err)
	}
	echo := host.Named{Exposed: "mcp__my_server__echo", Ref: host.Ref{Server: "my.server", Name: "echo"}}
	for _, name := range []string{"mcp__my_server__echo", "my_server__echo", "my.server/echo", "my.server__echo", "mcp__my.server__echo"} {
		if got, err := h.Find(host.KindTool, name); err != nil || got != echo {
			t.Errorf("Find(tool, %q) = %+v, %v; want %+v", name, got, err, echo)
		}
	}
	if got, err := h.Find(host.KindTool, "refuse"); err != nil || got.Server != "my.server" {
		t.Errorf("Find(tool, refuse), only my.server's: %+v, %v", got, err)
	}
	greet := host.Named{Exposed: "mcp__other__greet", Ref: host.Ref{Server: "other", Name: "greet"}}
	for _, name := range []string{"mcp__other__greet", "other__greet", "other/greet"} {
		if got, err := h.Find(host.KindPrompt, name); err != nil || got != greet {
			t.Errorf("Find(prompt, %q) = %+v, %v; want %+v", name, got, err, greet)
		}
	}

	var ne *host.NameError
	_, err := h.Find(host.KindTool, "echo")
	if !errors.As(err, &ne) || !ne.Ambiguous || len(ne.Near) != 2 {
		t.Errorf("Find(tool, echo) with two servers' echo: %v; want it ambiguous", err)
	}
	_, err = h.Find(host.KindTool, "my_server__ecoh")
	if !errors.As(err, &ne) || ne.Ambiguous || len(ne.Near) == 0 || ne.Near[0] != echo || !errors.Is(err, host.ErrUnknownTool) {
		t.Errorf("Find(tool, my_server__ecoh): %v; want did you mean %s", err, echo.Exposed)
	} else if want := `no tool named "my_server__ecoh"; did you mean "mcp__my_server__echo"?`; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if _, err = h.Find(host.KindTool, "nosuchthing"); !errors.As(err, &ne) || len(ne.Near) != 0 {
		t.Errorf("Find(tool, nosuchthing): %v; want nothing near", err)
	}
	var down *host.DownError
	for _, name := range []string{"mcp__broken_one__echo", "broken.one/echo", "broken_one__echo"} {
		_, err = h.Find(host.KindTool, name)
		if !errors.As(err, &down) || down.Server != "broken.one" || down.State != host.StateFailed || !strings.Contains(err.Error(), `server "broken.one" is failed: `) {
			t.Errorf("Find(tool, %q) of a failed server: %v; want it down, saying why", name, err)
		}
	}
}
