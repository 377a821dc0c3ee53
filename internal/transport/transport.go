// Package transport builds go-sdk transports from server configs: stdio
// children in their own process group with stderr captured line by line,
// streamable HTTP and SSE with configured headers, and the fallback from
// one to the other for a url without a type.
package transport

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

// Hooks receive what a transport sees besides protocol messages. Both may be
// nil, and are called from the transport's own goroutines.
type Hooks struct {
	// Stderr gets each line the server writes to stderr.
	Stderr func(line string)
	// Skipped gets each non-JSON line dropped from a stdio server's stdout.
	Skipped func(line string)
}

func (h Hooks) stderr(line string) {
	if h.Stderr != nil {
		h.Stderr(line)
	}
}

func (h Hooks) skipped(line string) {
	if h.Skipped != nil {
		h.Skipped(line)
	}
}

// defaultEnv names the variables a stdio server inherits from the host's own
// environment (DESIGN.md F17). Anything else, secrets in particular, reaches a
// server only through its config's env.
var defaultEnv = []string{
	"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE",
	"TMPDIR", "TZ", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR",
	"XDG_STATE_HOME", "NODE_PATH", "NODE_OPTIONS", "NVM_DIR", "GOPATH", "GOROOT",
	"SYSTEMROOT", "SSL_CERT_FILE", "SSL_CERT_DIR", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
	"http_proxy", "https_proxy", "no_proxy",
	// Set by switchboard's tests to run the test binary as the demo server;
	// GORACE lets a race-built server exit without the race runtime's
	// one-second pause, which would otherwise outlast the stdin grace.
	"SWITCHBOARD_DEMO_SERVER", "GORACE",
}

// Environ returns the environment for a stdio server: the default set taken
// from lookup, then the config's env on top, sorted for reproducibility.
func Environ(cfg *config.ServerConfig, lookup func(string) (string, bool)) []string {
	env := map[string]string{}
	for _, k := range defaultEnv {
		if v, ok := lookup(k); ok {
			env[k] = v
		}
	}
	for k, v := range cfg.Env {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// NewStdio prepares a stdio transport for cfg. The process starts on
// Connect. dir is used when cfg has no cwd (the project directory: a server
// started in / finds nothing).
func NewStdio(cfg *config.ServerConfig, dir string, hooks Hooks) *Stdio {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = Environ(cfg, os.LookupEnv)
	cmd.Dir = dir
	if cfg.Cwd != "" {
		cmd.Dir = cfg.Cwd
		if !filepath.IsAbs(cfg.Cwd) && dir != "" {
			cmd.Dir = filepath.Join(dir, cfg.Cwd)
		}
	}
	// exec.Command resolves the program through the host's PATH; a config's
	// own PATH should win, as it would in the server's shell.
	if p, ok := cfg.Env["PATH"]; ok && !strings.Contains(cfg.Command, "/") {
		if resolved, err := lookPathIn(cfg.Command, p); err == nil {
			cmd.Path = resolved
			cmd.Err = nil
		}
	}
	return &Stdio{cmd: cmd, hooks: hooks, exited: make(chan struct{})}
}

func lookPathIn(file, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, file)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found in PATH", file)
}

// NewHTTP returns the transport for an http or sse config.
func NewHTTP(cfg *config.ServerConfig, kind config.Transport) mcp.Transport {
	client := HTTPClient(cfg.Headers)
	if kind == config.TransportSSE {
		return &sseTransport{inner: &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}}
	}
	return &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}
}
