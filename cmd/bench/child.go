package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/procgroup"
)

// stopWait is how long a child has, after its stdin closed, to end its
// session and its servers and exit, before its process group is killed.
// server-everything over stdio ignores a closed stdin, and the TypeScript
// SDK's close waits 2 s before it signals it: 10 s covers that with room.
const stopWait = 10 * time.Second

// exitWait bounds cmd.Wait's wait for a killed child's output pipes, which
// a grandchild outside its group could hold open.
const exitWait = 2 * time.Second

// stderrTail is how many of a child's last stderr lines a failure quotes.
const stderrTail = 20

// child is a process the harness drives by JSON lines: one request on its
// stdin, one answer on its stdout. Every role ends when its stdin closes,
// so no child outlives the harness, killed or not; stop ends it in order.
type child struct {
	name   string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *tail
	once   sync.Once
}

// startChild starts argv with env added to the harness's own, in a process
// group of its own.
func startChild(name string, argv, env []string) (*child, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	c := &child{name: name, cmd: cmd, stderr: &tail{}}
	cmd.Stderr = c.stderr
	cmd.WaitDelay = exitWait
	procgroup.Set(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c.in, c.out = in, bufio.NewReaderSize(out, 64<<10)
	return c, nil
}

// call writes req (nil: nothing) and reads one JSON answer into reply. A
// child that does not answer within timeout is killed, which ends the read.
func (c *child) call(ctx context.Context, req, reply any, timeout time.Duration) error {
	kill := time.AfterFunc(timeout, func() { c.kill() })
	defer kill.Stop()
	// An interrupted harness closes the child's stdin, as stop does: it
	// finishes what it is doing, then ends its servers in order (killing it
	// would leave server-everything, which outlives a closed stdin). One
	// that takes too long is killed.
	defer context.AfterFunc(ctx, func() {
		c.in.Close()
		time.AfterFunc(stopWait, c.kill)
	})()
	if req != nil {
		b, err := json.Marshal(req)
		if err != nil {
			return err
		}
		if _, err := c.in.Write(append(b, '\n')); err != nil {
			return c.failed(err)
		}
	}
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		switch {
		case ctx.Err() != nil:
			err = ctx.Err()
		case !kill.Stop():
			err = fmt.Errorf("no answer within %v", timeout)
		}
		return c.failed(err)
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(line, &e) == nil && e.Error != "" {
		return &saidError{child: c.name, msg: e.Error}
	}
	if err := json.Unmarshal(line, reply); err != nil {
		return fmt.Errorf("%s: answer %q: %w", c.name, line, err)
	}
	return nil
}

// saidError is an error a child answered with, rather than a child that
// stopped answering: one that is still running can be asked again.
type saidError struct{ child, msg string }

func (e *saidError) Error() string { return e.child + ": " + e.msg }

// failed wraps err with the child's name and its last stderr lines.
func (c *child) failed(err error) error {
	if s := c.stderr.String(); s != "" {
		return fmt.Errorf("%s: %w; its stderr ends:\n%s", c.name, err, s)
	}
	return fmt.Errorf("%s: %w", c.name, err)
}

// stop closes the child's stdin, which tells it to end its sessions and
// servers and exit, and waits for that; a child still there after
// stopWait has its process group killed. It may be called many times.
func (c *child) stop() error {
	var err error
	c.once.Do(func() {
		c.in.Close()
		done := make(chan error, 1)
		go func() { done <- c.cmd.Wait() }()
		select {
		case err = <-done:
		case <-time.After(stopWait):
			c.kill()
			err = <-done
			err = fmt.Errorf("did not stop within %v: killed (%v)", stopWait, err)
		}
		// Whatever is left of its group goes too: a server a killed client
		// left behind.
		c.kill()
		if err != nil {
			err = c.failed(err)
		}
	})
	return err
}

func (c *child) kill() {
	if p := c.cmd.Process; p != nil {
		_ = procgroup.Kill(p.Pid)
	}
}

// tail keeps the last stderrTail lines written to it.
type tail struct {
	mu    sync.Mutex
	lines []string
	part  string
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.part + string(p)
	lines := strings.Split(s, "\n")
	t.part = lines[len(lines)-1]
	for _, l := range lines[:len(lines)-1] {
		t.lines = append(t.lines, l)
		if len(t.lines) > stderrTail {
			t.lines = t.lines[1:]
		}
	}
	if len(t.part) > 4096 {
		t.part = t.part[:4096]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(strings.Join(append(t.lines[:len(t.lines):len(t.lines)], t.part), "\n"))
}
