package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// middleReady bounds a gateway process's start: serve with a demo server
// is ready in a few hundred milliseconds, mcp-hub (node) in about one
// second; a busy 2-core machine is many times slower.
const middleReady = time.Minute

// middleStop is how long a gateway process has after SIGTERM to end its
// servers and exit before it is killed: both end theirs at once, and
// server-everything, which ignores a closed stdin, on its own SIGTERM.
const middleStop = 10 * time.Second

// middleDrain bounds the wait for a stopped gateway's output pipe, which a
// server it left behind could hold open.
const middleDrain = 2 * time.Second

// toolRecheck is how often a client waiting for its tool to be listed asks
// again besides on every list_changed: over streamable HTTP a notification
// sent before the client's GET stream is open is lost (PEERS.md).
const toolRecheck = 100 * time.Millisecond

// errPortTaken says a gateway process could not bind the port it was given.
var errPortTaken = errors.New("port already taken")

// middle is a gateway process between a contender's client and its server:
// `switchboard serve` or mcp-hub. The client child starts it in the child's
// own process group, so that the harness's kill of a stuck child, or of
// what is left of its group when it stops, ends the gateway and its
// servers with it. Its stdout and stderr are read line by line into a
// tail, to the end, so that a chatty log never blocks it.
type middle struct {
	name    string
	cmd     *exec.Cmd
	out     *tail
	exited  chan struct{} // closed once Wait returned
	waitErr error
	drained chan struct{} // closed once the output pipe is at its end
	stopped bool
}

// startMiddle starts cmd and waits until ready, called with each output
// line, says it is: done, or an error that ends the process.
func startMiddle(ctx context.Context, name string, cmd *exec.Cmd, ready func(line string) (bool, error)) (*middle, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = w, w // *os.File: no copying goroutine for Wait
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	w.Close() // only the process and its children hold the write end now
	m := &middle{name: name, cmd: cmd, out: &tail{}, exited: make(chan struct{}), drained: make(chan struct{})}
	verdict := make(chan error, 1)
	go func() {
		defer close(m.drained)
		defer r.Close()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		decided := false
		for sc.Scan() {
			line := sc.Text()
			_, _ = m.out.Write([]byte(line + "\n"))
			if decided {
				continue
			}
			if ok, err := ready(line); ok || err != nil {
				decided = true
				verdict <- err
			}
		}
	}()
	go func() {
		m.waitErr = cmd.Wait()
		close(m.exited)
	}()
	timer := time.NewTimer(middleReady)
	defer timer.Stop()
	select {
	case err = <-verdict:
	case <-m.exited:
		select { // the last lines may say why
		case <-m.drained:
		case <-time.After(middleDrain):
		}
		select {
		case err = <-verdict:
		default:
			err = fmt.Errorf("exited before it was ready: %v", m.waitErr)
		}
	case <-timer.C:
		err = fmt.Errorf("not ready within %v", middleReady)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		stopErr := m.stop()
		return nil, errors.Join(m.failed(err), stopErr)
	}
	return m, nil
}

// cpu is the process's CPU time so far, its servers' not included; -1 if
// unknown.
func (m *middle) cpu() time.Duration { return processCPU(m.cmd.Process.Pid) }

// stop sends SIGTERM and waits for the process to exit, killing it after
// middleStop; a server it leaves behind is in the client child's group,
// which the harness kills once the child is gone. It may be called many
// times.
func (m *middle) stop() error {
	if m.stopped {
		return nil
	}
	m.stopped = true
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	var err error
	select {
	case <-m.exited:
	case <-time.After(middleStop):
		_ = m.cmd.Process.Kill()
		<-m.exited
		err = m.failed(fmt.Errorf("did not stop within %v of SIGTERM: killed", middleStop))
	}
	select {
	case <-m.drained:
	case <-time.After(middleDrain):
		err = errors.Join(err, m.failed(fmt.Errorf("its output stayed open %v after it exited", middleDrain)))
	}
	return err
}

// failed wraps err with the process's name and its last output lines.
func (m *middle) failed(err error) error {
	return fmt.Errorf("%s: %w; its output ends:\n%s", m.name, err, m.out.String())
}

// watchedClient is a go-sdk client that pokes changed whenever its server
// says its tool list changed.
func watchedClient() (*mcp.Client, <-chan struct{}) {
	changed := make(chan struct{}, 1)
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	return c, changed
}

// awaitTool waits, within middleReady, until sess lists the tool name: a
// gateway may list its server's tools only some time after it answers.
func awaitTool(ctx context.Context, sess *mcp.ClientSession, changed <-chan struct{}, name string) error {
	ctx, cancel := context.WithTimeout(ctx, middleReady)
	defer cancel()
	recheck := time.NewTicker(toolRecheck)
	defer recheck.Stop()
	for {
		res, err := sess.ListTools(ctx, nil)
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		if slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == name }) {
			return nil
		}
		select {
		case <-changed:
		case <-recheck.C:
		case <-ctx.Done():
			return fmt.Errorf("no tool %s within %v", name, middleReady)
		}
	}
}

// serverEntry is the target as an entry of an "mcpServers" config, the
// format switchboard and mcp-hub both read.
func (t *target) serverEntry() map[string]any {
	if t.Transport == "http" {
		return map[string]any{"type": "http", "url": t.URL}
	}
	return map[string]any{"command": t.Command, "args": t.Args, "env": t.Env}
}
