// Package demoserver runs the demo MCP server bundled with switchboard,
// for examples and an embedder's own tests: a program (a test binary,
// say) serves it when a config made here starts it.
//
//	func TestMain(m *testing.M) {
//		if demoserver.Serving() {
//			os.Exit(demoserver.Run(os.Args[1:]))
//		}
//		os.Exit(m.Run())
//	}
//
// and a test hands demoserver.Config("demo") to host.Start.
package demoserver

import (
	"os"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// Serving reports whether this process was started by a Config to serve
// the demo: then it should call Run and exit with its code.
func Serving() bool { return os.Getenv(demo.EnvServerMode) == "1" }

// Run serves the demo over stdin and stdout with args, the program's
// arguments (a Config's flags), until the session ends, and returns the
// exit code. It writes to stderr what a server writes there.
func Run(args []string) int { return demo.Main(args) }

// Config is a stdio server named name that runs this program as the
// demo server (Serving, Run) with flags besides its name. Among them:
// --legacy speaks only MCP 2025-11-25; --sampling adds sample, which
// asks the client to sample a reply; --roots adds roots, which lists the
// client's roots; --test-tools adds tools that send notifications;
// --init-delay=2s starts slowly; --exit-after=1s crashes; --help lists
// the rest.
func Config(name string, flags ...string) (config.ServerConfig, error) {
	exe, err := os.Executable()
	if err != nil {
		return config.ServerConfig{}, err
	}
	return config.ServerConfig{
		Name:    name,
		Command: exe,
		Args:    append([]string{"--name", name}, flags...),
		Env:     map[string]string{demo.EnvServerMode: "1"},
	}, nil
}
