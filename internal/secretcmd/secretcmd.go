// Package secretcmd runs the "!command" secret helpers a config may name
// for an env or header value (DESIGN.md F5: "GITHUB_TOKEN": "!gh auth token"),
// remembering what each printed, so a reload or a second server with the
// same secret does not run the helper again. Discovery gets a Runner
// through its options; nothing here is package state (DESIGN.md,
// "Secrets").
package secretcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/clip"
	"github.com/switchboard-mcp/switchboard/internal/procgroup"
	"github.com/switchboard-mcp/switchboard/internal/reap"
)

// Timeout bounds one command. Secret helpers (gh auth token, op read,
// pass) answer in well under a second; ten seconds leaves room for a slow
// keychain without letting a hung helper stall discovery.
const Timeout = 10 * time.Second

// pipeDrain bounds how long the runner reads the command's pipes once it
// has exited and what it left has been ended. Those were the only other
// holders, so the pipes are at EOF at once; the bound is for a process
// that escaped both the group and the mark (or, off Linux, the group),
// which must not hold discovery too.
const pipeDrain = 200 * time.Millisecond

// maxStderr bounds the stderr quoted in an error: enough for the helper's
// message, not a page of it.
const maxStderr = 512

// Runner runs commands with /bin/sh and caches what succeeded. Failures
// are not cached, so a helper that failed (a locked keychain) is tried
// again next time. The zero value is ready to use; a Runner must not be
// copied after first use.
type Runner struct {
	mu  sync.Mutex
	out map[string]string
}

// Run runs command in dir ("" for the process's own directory) and
// returns its stdout with surrounding white space trimmed. The command runs
// in a process group of its own, killed as a whole on timeout or when ctx
// ends. The answer is what it printed by the time its shell exited: a
// process it left running (an agent it started, say) does not hold the
// answer back, and is ended. The error quotes the command's stderr, never
// its stdout: that is the secret.
func (r *Runner) Run(ctx context.Context, command, dir string) (string, error) {
	key := dir + "\x00" + command
	r.mu.Lock()
	out, ok := r.out[key]
	r.mu.Unlock()
	if ok {
		return out, nil
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	stdout, stderr, err := run(ctx, command, dir)
	switch {
	case err == nil:
		// Done in time; ending what it left may have outlasted ctx.
	case parent.Err() != nil:
		err = parent.Err() // the caller's deadline or cancellation, not ours
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("timed out after %s", Timeout)
	}
	if err != nil {
		msg := strings.TrimSpace(string(stderr))
		if len(msg) > maxStderr {
			msg = msg[:maxStderr] + "…"
		}
		if msg != "" {
			return "", fmt.Errorf("command %q failed: %v: %s", clip.Text(command), err, strings.Join(strings.Fields(msg), " "))
		}
		return "", fmt.Errorf("command %q failed: %v", clip.Text(command), err)
	}
	out = strings.TrimSpace(string(stdout))
	r.mu.Lock()
	if r.out == nil {
		r.out = make(map[string]string)
	}
	r.out[key] = out
	r.mu.Unlock()
	return out, nil
}

// run runs command with /bin/sh until the shell exits, and returns what it
// wrote. The pipes are the runner's own, not os/exec's, so that Wait
// returns when the shell exits rather than when every holder of its
// stdout has closed it. Then whatever the command left is ended — its
// group, and on Linux every process carrying its mark (DESIGN.md F17) —
// and the pipes are read to EOF, for at most pipeDrain.
func run(ctx context.Context, command, dir string) (stdout, stderr []byte, err error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, err
	}
	mark := reap.NewMark()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.Dir = dir
	cmd.Env = mark.Set(os.Environ())
	procgroup.Set(cmd)
	// sh may have started the helper as a child that would otherwise keep
	// running.
	cmd.Cancel = func() error { return procgroup.Kill(cmd.Process.Pid) }
	err = reap.Start(cmd)
	// The child holds its own copies of the write ends.
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, nil, err
	}
	var outBuf, errBuf bytes.Buffer
	var readers sync.WaitGroup
	readers.Go(func() { _, _ = io.Copy(&outBuf, outR) })
	readers.Go(func() { _, _ = io.Copy(&errBuf, errR) })
	err = reap.Wait(cmd)

	// Whatever the helper left behind ends with it; the pipes it held
	// then reach EOF.
	_ = procgroup.Kill(cmd.Process.Pid)
	_ = reap.End(mark, nil)
	read := make(chan struct{})
	go func() {
		readers.Wait()
		close(read)
	}()
	timer := time.NewTimer(pipeDrain)
	defer timer.Stop()
	select {
	case <-read:
	case <-timer.C:
	}
	// A reader still blocked returns; the readers are done once read closes.
	outR.Close()
	errR.Close()
	<-read
	return outBuf.Bytes(), errBuf.Bytes(), err
}
