package demo

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// garbagePreamble is what --garbage writes before serving: lines a strict
// newline-delimited JSON reader must reject, including one that starts like
// JSON.
const garbagePreamble = "this is not json\n" +
	"=== switchboard demo server (garbage mode) ===\n" +
	"\n" +
	"{not json either\n"

// GarbageLine is written by --garbage before every protocol line.
const GarbageLine = "garbage: this line is not JSON-RPC"

// garbageWriter inserts GarbageLine before every line written through it.
// Writes need not be whole lines: it tracks whether the next byte starts one.
type garbageWriter struct {
	mu      sync.Mutex
	w       io.WriteCloser
	midLine bool
}

func (g *garbageWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for len(p) > 0 {
		if !g.midLine {
			if _, err := io.WriteString(g.w, GarbageLine+"\n"); err != nil {
				return n, err
			}
			g.midLine = true
		}
		line := p
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			line = p[:i+1]
			g.midLine = false
		}
		m, err := g.w.Write(line)
		n += m
		if err != nil {
			return n, err
		}
		p = p[len(line):]
	}
	return n, nil
}

func (g *garbageWriter) Close() error { return g.w.Close() }

// startGrandchild re-executes this program in --sleep-forever mode. The child
// shares stderr (as a real server's helper process would) but not stdin or
// stdout, so the client sees EOF when the demo server itself exits. It is
// reaped in the background, and its exit is reported on stderr.
func startGrandchild(opts Options, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("grandchild: %w", err)
	}
	args := append(slices.Clone(opts.ReexecArgs), "--sleep-forever")
	if opts.IgnoreSigterm {
		args = append(args, "--ignore-sigterm")
	}
	cmd := exec.Command(exe, args...)
	cmd.Stderr = os.Stderr
	if err := leaveGroup(cmd, opts.GrandchildLeaves); err != nil {
		return fmt.Errorf("grandchild: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("grandchild: %w", err)
	}
	fmt.Fprintf(stderr, "grandchild pid %d\n", cmd.Process.Pid)
	go func() {
		_ = cmd.Wait() // the state says how it ended
		fmt.Fprintf(stderr, "grandchild %d exited: %v\n", cmd.Process.Pid, cmd.ProcessState)
	}()
	return nil
}

// blockForever never returns; the process ends by signal (or --exit-after).
// A sleeping loop rather than select{} because with no other goroutine
// runnable the runtime would report a deadlock and crash.
func blockForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// freezingReader reads normally until a moment, then blocks forever: the
// server stays alive but answers nothing (--freeze-after).
type freezingReader struct {
	r  io.ReadCloser
	at time.Time
}

func (f *freezingReader) Read(p []byte) (int, error) {
	if time.Now().After(f.at) {
		blockForever()
	}
	n, err := f.r.Read(p)
	if time.Now().After(f.at) {
		blockForever() // what arrived after the moment is never answered
	}
	return n, err
}

func (f *freezingReader) Close() error { return f.r.Close() }

// DumpEnvError starts the error line --dump-env writes last.
const DumpEnvError = "fatal: cannot start; environment:"

// dumpEnv writes what --dump-env writes: every variable, sorted, on a line
// of its own, then all of them on one line classified as an error, which
// is what a host quotes when the server exits.
func dumpEnv(w io.Writer) {
	env := os.Environ()
	slices.Sort(env)
	for _, kv := range env {
		fmt.Fprintf(w, "env: %s\n", kv)
	}
	fmt.Fprintf(w, "%s %s\n", DumpEnvError, strings.Join(env, " "))
}
