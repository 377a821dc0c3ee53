package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/switchboard-mcp/switchboard/internal/testkit/peers"
)

// env is what the harness found to run: itself, and the npm peers.
type env struct {
	opts *Options
	log  io.Writer // progress, one line per case
	self string    // this binary, re-executed for every Go role
	// The npm peers; empty when not installed, and then notes says so.
	peersDir, node, tsClient, everything string
	tsVersion                            string
	// mcp-hub's script and version (make bench-peers), looked for only
	// when the mcphub contender is asked for; empty when not installed.
	hub, hubVersion string
	notes           []string
}

func newEnv(o *Options, log io.Writer) (*env, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	e := &env{opts: o, log: log, self: self}
	dir, err := peers.Installed()
	if err == nil {
		e.peersDir = dir
		e.node, err = peers.FindNode()
	}
	if err == nil {
		e.everything, err = peers.Script(dir, "server-everything")
	}
	if err == nil {
		e.tsClient = filepath.Join(filepath.Dir(dir), "bench-client.mjs")
		_, err = os.Stat(e.tsClient)
	}
	if err == nil {
		e.tsVersion = packageVersion(filepath.Join(dir, "@modelcontextprotocol", "sdk", "package.json"))
	}
	if err != nil {
		e.peersDir, e.node, e.tsClient, e.everything = "", "", "", ""
		e.notes = append(e.notes, fmt.Sprintf("no TypeScript client and no server-everything: %v", err))
	}
	if slices.Contains(o.Contenders, "mcphub") {
		if e.hub, e.hubVersion, err = findMCPHub(e.peersDir); err != nil {
			e.notes = append(e.notes, fmt.Sprintf("no mcp-hub: %v", err))
		}
	}
	return e, nil
}

func packageVersion(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "?"
	}
	var p struct{ Version string }
	if json.Unmarshal(b, &p) != nil {
		return "?"
	}
	return p.Version
}

// roleArgv is this binary in a role: the argv and the environment to add.
func (e *env) roleArgv(role string, args ...string) ([]string, []string) {
	return append([]string{e.self}, args...), []string{EnvRole + "=" + role}
}

// echoArgs is what each server's echo tool is called with.
var echoArgs = map[string]map[string]any{
	"floor":      {"text": "hello"},
	"demo":       {"text": "hello"},
	"everything": {"message": "hello"},
}

// stdioTarget is how a contender starts server over stdio.
func (e *env) stdioTarget(server string) (*target, error) {
	t := &target{Transport: "stdio", Tool: "echo", Arguments: echoArgs[server]}
	switch server {
	case "floor", "demo":
		t.Command = e.self
		t.Env = map[string]string{EnvRole: server + "-server"}
	case "everything":
		if e.everything == "" {
			return nil, errNoPeers
		}
		t.Command, t.Args = e.node, []string{e.everything, "stdio"}
	}
	return t, nil
}

// errNoPeers leaves out what needs the npm peers.
var errNoPeers = errors.New("not installed (make peers)")

// httpTarget starts server on a loopback port, shared by every contender
// (each has its own session), and returns how to stop it.
func (e *env) httpTarget(ctx context.Context, server string) (*target, func() error, error) {
	t := &target{Transport: "http", Tool: "echo", Arguments: echoArgs[server]}
	switch server {
	case "floor", "demo":
		argv, env := e.roleArgv(server + "-http")
		c, err := startChild(server+" server (http)", argv, env)
		if err != nil {
			return nil, nil, err
		}
		var ans struct{ URL string }
		if err := c.call(ctx, nil, &ans, e.opts.Timeout); err != nil {
			c.stop()
			return nil, nil, err
		}
		t.URL = ans.URL
		return t, c.stop, nil
	default:
		if e.everything == "" {
			return nil, nil, errNoPeers
		}
		srv, err := peers.LaunchEverything(e.peersDir, "streamableHttp")
		if err != nil {
			return nil, nil, err
		}
		t.URL = srv.URL
		return t, func() error { srv.Stop(); return nil }, nil
	}
}

// contender starts one contender's client child on t and waits until it
// is connected and warmed up.
func (e *env) contender(ctx context.Context, name string, t *target, extraEnv ...string) (*child, error) {
	spec, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	var argv, env []string
	switch name {
	case "ts":
		if e.tsClient == "" {
			return nil, errNoPeers
		}
		argv = []string{e.node, e.tsClient, "calls", string(spec), strconv.Itoa(e.opts.Warmup)}
	case "mcphub":
		if e.hub == "" {
			return nil, errNoPeers
		}
		fallthrough
	default:
		argv, env = e.roleArgv("client", "-contender", name, "-target", string(spec), "-warmup", strconv.Itoa(e.opts.Warmup))
		if name == "mcphub" {
			env = append(env, envHubNode+"="+e.node, envHubScript+"="+e.hub)
		}
	}
	c, err := startChild(name, argv, append(env, extraEnv...))
	if err != nil {
		return nil, err
	}
	var r ready
	if err := c.call(ctx, nil, &r, e.opts.Timeout); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}
