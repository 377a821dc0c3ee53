package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// target is how a contender reaches a server, and what it calls there. The
// harness hands it to every contender, the TypeScript one too, as JSON.
type target struct {
	Transport string            `json:"transport"` // "stdio" or "http"
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	URL       string            `json:"url,omitempty"`
	Tool      string            `json:"tool"`
	Arguments map[string]any    `json:"arguments"`
}

// command is the server's command line with its environment on top of ours.
func (t *target) command() *exec.Cmd {
	cmd := exec.Command(t.Command, t.Args...)
	cmd.Env = os.Environ()
	for k, v := range t.Env {
		cmd.Env = append(cmd.Env, k+"="+v) // later entries win
	}
	return cmd
}

// serverConfig is the target as the host is given it.
func (t *target) serverConfig(name string) config.ServerConfig {
	cfg := config.ServerConfig{
		Name:   name,
		Source: config.Source{Provider: "bench", Path: "cmd/bench", Level: config.LevelExplicit},
		// The version the bare session and the raw client speak, so the
		// call path is compared like for like: under 2026-07-28 every
		// request carries its _meta.
		ProtocolVersion: host.ProtocolVersion,
	}
	if t.Transport == "http" {
		cfg.Type, cfg.URL = config.TransportHTTP, t.URL
	} else {
		cfg.Command, cfg.Args, cfg.Env = t.Command, t.Args, t.Env
	}
	return cfg
}

// A caller is one contender's connection to its server.
type caller interface {
	// calls makes len(lat) calls, callers of them at a time, and puts
	// each one's time in lat.
	calls(ctx context.Context, lat []time.Duration, callers int) error
	close() error
}

// dialers are the Go contenders, by name.
var dialers = map[string]func(context.Context, *target) (caller, error){
	"host":    dialHost,
	"gateway": dialGateway,
	"bare":    dialBare,
	"raw":     dialRaw,
	"serve":   dialServe,
	"mcphub":  dialMCPHub,
	"ops-off": dialOps(false),
	"ops-on":  dialOps(true),
}

// bareTerminate is how long a bare session's Close waits after closing the
// server's stdin before SIGTERM: server-everything keeps running on its
// timers, so go-sdk's 5 s default would only slow the teardown.
const bareTerminate = 100 * time.Millisecond

// maxIdlePerHost keeps a connection per caller: net/http's default of 2
// would open and close connections with 16 callers, and measure that. The
// host's own transport keeps 16.
const maxIdlePerHost = 64

// pooledClient is an HTTP client that keeps a connection for every caller.
func pooledClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = maxIdlePerHost
	return &http.Client{Transport: t}
}

// hostCaller calls through host.Host.CallTool, with one server.
type hostCaller struct {
	h    *host.Host
	name string
	args map[string]any
}

func dialHost(ctx context.Context, t *target) (caller, error) {
	h := host.New(nil)
	if err := h.Start(ctx, []config.ServerConfig{t.serverConfig("bench")}); err != nil {
		h.Close()
		return nil, err
	}
	st := h.Status()[0]
	if st.State != host.StateConnected {
		h.Close()
		return nil, fmt.Errorf("host: server %s: %s", st.State, st.Error)
	}
	for _, tool := range h.Tools().Tools {
		if tool.Tool == t.Tool {
			return &hostCaller{h: h, name: tool.Name, args: t.Arguments}, nil
		}
	}
	h.Close()
	return nil, fmt.Errorf("host: no tool %q", t.Tool)
}

func (c *hostCaller) calls(ctx context.Context, lat []time.Duration, callers int) error {
	return concurrently(lat, callers, func() error {
		res, err := c.h.CallTool(ctx, c.name, c.args)
		if err == nil && res.IsError {
			err = fmt.Errorf("%s: %s", c.name, host.ResultText(res))
		}
		return err
	})
}

func (c *hostCaller) close() error { return c.h.Close() }

// bareCaller calls through a go-sdk ClientSession, as a program without
// the host would.
type bareCaller struct {
	sess   *mcp.ClientSession
	params *mcp.CallToolParams
	http   *http.Client
}

func dialBare(ctx context.Context, t *target) (caller, error) {
	sess, hc, err := bareSession(ctx, mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil), t)
	if err != nil {
		return nil, err
	}
	return &bareCaller{sess: sess, params: &mcp.CallToolParams{Name: t.Tool, Arguments: t.Arguments}, http: hc}, nil
}

// bareSession connects one go-sdk session to t, asking for the version the
// host asks for (go-sdk's default first sends server/discover).
func bareSession(ctx context.Context, client *mcp.Client, t *target) (*mcp.ClientSession, *http.Client, error) {
	var tr mcp.Transport
	var hc *http.Client
	if t.Transport == "http" {
		hc = pooledClient()
		tr = &mcp.StreamableClientTransport{Endpoint: t.URL, HTTPClient: hc}
	} else {
		tr = &mcp.CommandTransport{Command: t.command(), TerminateDuration: bareTerminate}
	}
	sess, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: host.ProtocolVersion})
	if err != nil {
		return nil, nil, fmt.Errorf("bare: connect: %w", err)
	}
	return sess, hc, nil
}

func (c *bareCaller) calls(ctx context.Context, lat []time.Duration, callers int) error {
	return concurrently(lat, callers, func() error {
		res, err := c.sess.CallTool(ctx, c.params)
		if err == nil && res.IsError {
			err = fmt.Errorf("%s: %s", c.params.Name, host.ResultText(res))
		}
		return err
	})
}

func (c *bareCaller) close() error {
	err := c.sess.Close()
	if c.http != nil {
		c.http.CloseIdleConnections()
	}
	return err
}

// concurrently makes len(lat) calls of call from callers goroutines, each
// taking the next call's number until none is left, and returns the first
// error.
func concurrently(lat []time.Duration, callers int, call func() error) error {
	var next atomic.Int64
	var (
		mu    sync.Mutex
		first error
	)
	work := func() {
		for {
			i := next.Add(1) - 1
			if i >= int64(len(lat)) {
				return
			}
			start := time.Now()
			err := call()
			lat[i] = time.Since(start)
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				next.Store(int64(len(lat))) // stop the others
				return
			}
		}
	}
	if callers <= 1 {
		work()
		return first
	}
	var wg sync.WaitGroup
	for range callers {
		wg.Go(work)
	}
	wg.Wait()
	return first
}

// errNoResult is what a raw call says of an answer that carries no result.
var errNoResult = errors.New("answer without a result")
