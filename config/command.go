package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// An env or header value that starts with "!" is a shell command whose
// output is the value (SPEC F5): "GITHUB_TOKEN": "!gh auth token" keeps
// the secret in the keychain rather than in the file. "!!" at the start
// stands for a literal "!".

// CommandTimeout bounds one "!command". Secret helpers (gh auth token, op
// read, pass) answer in well under a second; ten seconds leaves room for a
// slow keychain without letting a hung helper stall discovery.
const CommandTimeout = 10 * time.Second

// maxCommandStderr bounds the stderr quoted in an error: enough for the
// helper's message, not a page of it.
const maxCommandStderr = 512

// ErrCommandNotAllowed is the error of a "!command" in a project-level file
// whose project is not trusted: running it would run a program a cloned
// repository chose.
var ErrCommandNotAllowed = errors.New("command substitution is not allowed in untrusted project config")

// commandCache holds the output of every command that succeeded, by command
// string, for the life of the process: a reload or a second server with the
// same secret does not run the helper again. Failures are not cached, so a
// helper that failed (a locked keychain) is tried again next time.
var commandCache struct {
	mu  sync.Mutex
	out map[string]string
}

// resetCommandCache forgets every cached output (tests).
func resetCommandCache() {
	commandCache.mu.Lock()
	commandCache.out = nil
	commandCache.mu.Unlock()
}

// runCommand runs one command with /bin/sh in its own process group, bounded
// by CommandTimeout, and returns its stdout with surrounding white space
// trimmed. The error quotes the command's stderr, never its stdout: that is
// the secret.
func runCommand(command string) (string, error) {
	commandCache.mu.Lock()
	out, ok := commandCache.out[command]
	commandCache.mu.Unlock()
	if ok {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// On timeout, kill the whole group: sh may have started the helper as
	// a child that would otherwise keep the pipes open.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("timed out after %s", CommandTimeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > maxCommandStderr {
			msg = msg[:maxCommandStderr] + "…"
		}
		if msg != "" {
			return "", fmt.Errorf("command %q failed: %v: %s", clip(command), err, oneLineText(msg))
		}
		return "", fmt.Errorf("command %q failed: %v", clip(command), err)
	}
	out = strings.TrimSpace(stdout.String())
	commandCache.mu.Lock()
	if commandCache.out == nil {
		commandCache.out = make(map[string]string)
	}
	commandCache.out[command] = out
	commandCache.mu.Unlock()
	return out, nil
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// hasCommands reports whether any env or header value of c is a command.
func hasCommands(c *ServerConfig) bool {
	for _, m := range []map[string]string{c.Env, c.Headers} {
		for _, v := range m {
			if strings.HasPrefix(v, "!") {
				return true
			}
		}
	}
	return false
}

// resolveCommands replaces each "!command" env or header value of c by the
// command's output, and "!!x" by "!x". With allowed false, a command is
// ErrCommandNotAllowed. The error is a *Diagnostic naming the field,
// positioned at c.Source; c's maps are replaced, never changed in place.
func resolveCommands(c *ServerConfig, allowed bool) error {
	for _, m := range []struct {
		field string
		vals  *map[string]string
	}{{"env", &c.Env}, {"headers", &c.Headers}} {
		if *m.vals == nil {
			continue
		}
		out := maps.Clone(*m.vals)
		for _, k := range slices.Sorted(maps.Keys(out)) {
			v := out[k]
			switch {
			case strings.HasPrefix(v, "!!"):
				out[k] = v[1:]
			case strings.HasPrefix(v, "!"):
				if !allowed {
					return commandDiag(c, m.field+"."+k, ErrCommandNotAllowed)
				}
				res, err := runCommand(v[1:])
				if err != nil {
					return commandDiag(c, m.field+"."+k, err)
				}
				out[k] = res
			}
		}
		*m.vals = out
	}
	return nil
}

func commandDiag(c *ServerConfig, field string, err error) *Diagnostic {
	return &Diagnostic{Path: c.Source.Path, Line: c.Source.Line, Server: c.Name, Field: field, Message: err.Error(), Err: err}
}
