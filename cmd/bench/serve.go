package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/cmd/internal/cli"
	"github.com/switchboard-mcp/switchboard/host"
)

// switchboardRole is `switchboard` itself, cmd/switchboard's main: the
// serve contender runs this binary in it, so that what is measured is the
// program people run, built from this tree.
func switchboardRole(args []string) int { return cli.Main(args, cli.StdIO()) }

// serveServer is the server's name in serve's config, and so the prefix
// of its tool's exposed name; mcp-hub prefixes the same way.
const serveServer = "bench"

// middleCaller calls through a gateway process (serve, mcp-hub), whose CPU
// time round reports beside the client's.
type middleCaller struct {
	m      *middle
	dir    string // the gateway's config, state and home; removed on close
	sess   *mcp.ClientSession
	http   *http.Client
	params *mcp.CallToolParams
	env    []string // added to serve's environment (servegc.go)
}

// dialServe starts `switchboard serve --http 127.0.0.1:0` with the one
// server in its config, in a folder of its own (nothing of the user's is
// read), and connects a go-sdk client over streamable HTTP, speaking the
// legacy era as the host does upstream: the same client as bare's, so
// the difference is serve.
func dialServe(ctx context.Context, t *target) (caller, error) {
	return dialServeEnv(ctx, t)
}

// dialServeEnv is dialServe with env added to serve's environment.
func dialServeEnv(ctx context.Context, t *target, env ...string) (caller, error) {
	c, err := newMiddleCaller("switchboard-bench-serve-", "state", "cache", "project", "config", "home")
	if err != nil {
		return nil, err
	}
	c.env = env
	if err := c.startServe(ctx, t); err != nil {
		return nil, errors.Join(fmt.Errorf("serve: %w", err), c.close())
	}
	return c, nil
}

func newMiddleCaller(prefix string, subdirs ...string) (*middleCaller, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	for _, sub := range subdirs {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	return &middleCaller{dir: dir}, nil
}

func (c *middleCaller) startServe(ctx context.Context, t *target) error {
	cfg := filepath.Join(c.dir, "config", "mcp.json")
	if err := writeJSON(cfg, map[string]any{"mcpServers": map[string]any{serveServer: t.serverEntry()}}); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "--config", cfg, "--no-discover",
		"--state-dir", filepath.Join(c.dir, "state"), "--cache-dir", filepath.Join(c.dir, "cache"),
		"--project", filepath.Join(c.dir, "project"), "--trust-project",
		"serve", "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), // later entries win
		EnvRole+"=switchboard",
		"HOME="+filepath.Join(c.dir, "home"),
		"XDG_CONFIG_HOME="+filepath.Join(c.dir, "home", ".config"),
		"XDG_STATE_HOME="+filepath.Join(c.dir, "state"),
		"XDG_CACHE_HOME="+filepath.Join(c.dir, "cache"))
	cmd.Env = append(cmd.Env, c.env...)
	var url string
	c.m, err = startMiddle(ctx, "switchboard serve", cmd, func(line string) (bool, error) {
		rest, ok := strings.CutPrefix(line, "serving on ")
		url = strings.TrimSpace(rest)
		return ok, nil
	})
	if err != nil {
		return err
	}
	c.http = pooledClient()
	return c.connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: c.http}, serveServer+"__"+t.Tool, t.Arguments)
}

// connect connects the client and waits until the gateway lists the tool.
func (c *middleCaller) connect(ctx context.Context, tr mcp.Transport, tool string, args map[string]any) error {
	client, changed := watchedClient()
	var err error
	c.sess, err = client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: host.ProtocolVersion})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	if err := awaitTool(ctx, c.sess, changed, tool); err != nil {
		return err
	}
	c.params = &mcp.CallToolParams{Name: tool, Arguments: args}
	return nil
}

func (c *middleCaller) calls(ctx context.Context, lat []time.Duration, callers int) error {
	return concurrently(lat, callers, func() error {
		res, err := c.sess.CallTool(ctx, c.params)
		if err == nil && res.IsError {
			err = fmt.Errorf("%s: %s", c.params.Name, host.ResultText(res))
		}
		return err
	})
}

func (c *middleCaller) middleCPU() time.Duration { return c.m.cpu() }

// middlePeakKB is the gateway process's peak resident memory so far.
func (c *middleCaller) middlePeakKB() int64 { return processPeakRSS(c.m.cmd.Process.Pid) }

// close ends the client's session, then the gateway (which ends its
// server), then removes its folder.
func (c *middleCaller) close() error {
	var errs []error
	if c.sess != nil {
		errs = append(errs, c.sess.Close())
	}
	if c.http != nil {
		c.http.CloseIdleConnections()
	}
	if c.m != nil {
		errs = append(errs, c.m.stop())
	}
	errs = append(errs, os.RemoveAll(c.dir))
	return errors.Join(errs...)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
