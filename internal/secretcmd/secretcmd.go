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
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/clip"
	"github.com/switchboard-mcp/switchboard/internal/procgroup"
)

// Timeout bounds one command. Secret helpers (gh auth token, op read,
// pass) answer in well under a second; ten seconds leaves room for a slow
// keychain without letting a hung helper stall discovery.
const Timeout = 10 * time.Second

// pipeWait bounds how long the runner waits for the command's pipes to
// close once it has exited or been killed: a helper that left a child
// holding them must not hold discovery too.
const pipeWait = time.Second

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
// ends. The error quotes the command's stderr, never its stdout: that is
// the secret.
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
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Dir = dir
	procgroup.Set(cmd)
	// sh may have started the helper as a child that would otherwise keep
	// running, and the pipes open.
	cmd.Cancel = func() error { return procgroup.Kill(cmd.Process.Pid) }
	cmd.WaitDelay = pipeWait
	err := cmd.Run()
	if cmd.Process != nil {
		// Whatever the helper left behind in its group ends with it.
		_ = procgroup.Kill(cmd.Process.Pid)
	}
	switch {
	case parent.Err() != nil:
		err = parent.Err() // the caller's deadline or cancellation, not ours
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("timed out after %s", Timeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > maxStderr {
			msg = msg[:maxStderr] + "…"
		}
		if msg != "" {
			return "", fmt.Errorf("command %q failed: %v: %s", clip.Text(command), err, strings.Join(strings.Fields(msg), " "))
		}
		return "", fmt.Errorf("command %q failed: %v", clip.Text(command), err)
	}
	out = strings.TrimSpace(stdout.String())
	r.mu.Lock()
	if r.out == nil {
		r.out = make(map[string]string)
	}
	r.out[key] = out
	r.mu.Unlock()
	return out, nil
}
