package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/discover"
)

// call and prompt take every name a person sees of a tool or prompt, of a
// server whose name has a dot too: the one the listings show, the one
// serve shows, server/name. The host resolves them (host.Find).
func TestRunTakesEveryName(t *testing.T) {
	d := &discover.Discovery{Servers: []config.ServerConfig{demoServer(t, "my.server"), demoServer(t, "other")}}
	for _, name := range []string{"mcp__my_server__echo", "my_server__echo", "my.server/echo"} {
		ff := newFakeFactory(d)
		if err := runCall(context.Background(), &callOptions{Factory: ff.Factory, Tool: name, Pairs: []string{"text=hi"}}); err != nil || ff.out.String() != "hi\n" {
			t.Errorf("call %s: %v, printed %q", name, err, ff.out.String())
		}
	}
	for _, name := range []string{"my.server/greet", "mcp__my_server__greet", "my_server__greet"} {
		ff := newFakeFactory(d)
		if err := runPrompt(context.Background(), &promptOptions{Factory: ff.Factory, Name: name, Pairs: []string{"name=Ada"}}); err != nil || !strings.Contains(ff.out.String(), "Ada") {
			t.Errorf("prompt %s: %v, printed %q", name, err, ff.out.String())
		}
	}
}

// A name that names nothing is a usage mistake that offers the nearest
// names, or says where to look; one that names several lists them.
func TestRunNameMistakes(t *testing.T) {
	d := &discover.Discovery{Servers: []config.ServerConfig{demoServer(t, "my.server"), demoServer(t, "other")}}
	for _, tc := range []struct {
		run func(*Factory, string) error
		arg string
		err string
	}{
		{runCallNamed, "my_server__ecoh", `no tool named "my_server__ecoh"; did you mean "mcp__my_server__echo"?`},
		{runCallNamed, "nosuch", `no tool named "nosuch" (see 'switchboard tools')`},
		{runPromptNamed, "my.server/gret", `no prompt named "my.server/gret"; did you mean "my.server/greet"?`},
		{runPromptNamed, "greet", `prompt "greet" is ambiguous: my.server/greet, other/greet`},
		{runPromptNamed, "nosuch", `no prompt named "nosuch" (see 'switchboard prompts')`},
	} {
		ff := newFakeFactory(d)
		err := tc.run(ff.Factory, tc.arg)
		if _, usage := errors.AsType[usageError](err); !usage || err.Error() != tc.err {
			t.Errorf("%s: %v; want the usage error %q", tc.arg, err, tc.err)
		}
	}
}

// A name of a server that is down is that server's failure (exit 1),
// saying why, not a mistake in the name; before, a server name with a dot
// made it "no tool named".
func TestRunNameOfDownServer(t *testing.T) {
	broken := config.ServerConfig{Name: "my.server", Command: "/nonexistent/switchboard-demo",
		Source: config.Source{Provider: "test", Path: "names_test.go", Level: config.LevelExplicit}}
	d := &discover.Discovery{Servers: []config.ServerConfig{broken}}
	for _, name := range []string{"mcp__my_server__echo", "my_server__echo", "my.server/echo"} {
		ff := newFakeFactory(d)
		err := runCallNamed(ff.Factory, name)
		if _, usage := errors.AsType[usageError](err); usage || err == nil || !strings.HasPrefix(err.Error(), `server "my.server" is failed: `) {
			t.Errorf("call %s: %v; want the server's failure", name, err)
		}
	}
}

func runCallNamed(f *Factory, name string) error {
	return runCall(context.Background(), &callOptions{Factory: f, Tool: name, Pairs: []string{"text=hi"}})
}

func runPromptNamed(f *Factory, name string) error {
	return runPrompt(context.Background(), &promptOptions{Factory: f, Name: name, Pairs: []string{"name=Ada"}})
}
