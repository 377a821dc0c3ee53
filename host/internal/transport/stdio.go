package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/procgroup"
	"github.com/switchboard-mcp/switchboard/internal/reap"
)

// Shutdown grace periods for stdio servers (DESIGN.md F17). A well-behaved server
// exits as soon as its stdin closes, so the first wait only needs to cover a
// flush; a server that ignores SIGTERM gets the second wait before SIGKILL.
const (
	// StdinGrace is how long Close waits after closing stdin.
	StdinGrace = 500 * time.Millisecond
	// ServerTermGrace is how long Close waits after SIGTERM to the group:
	// a server may be saving its state. What it left outside the group
	// gets reap.LeftoverTermGrace, shorter.
	ServerTermGrace = 1 * time.Second
	// killWait bounds the wait for the kernel to reap after SIGKILL.
	killWait = 5 * time.Second
	// stderrDrain bounds the wait for the last stderr lines once the
	// group is gone: a process that left the group (setsid) may hold
	// stderr open for ever, and Close must not wait on it.
	stderrDrain = 500 * time.Millisecond
)

// maxStderrLine bounds one stderr line kept in memory; the rest of an
// overlong line is dropped. It is well above what the host shows of a
// line (8 KiB): the host masks secrets before it cuts, so a secret that
// straddles the shown part is masked whole.
const maxStderrLine = 64 << 10

// Stdio is an mcp.Transport that runs a server as a child process in its own
// process group. Unlike go-sdk's CommandTransport it survives non-JSON lines
// on stdout, reads stderr line by line, and ends the whole process group on
// Close, so wrappers such as npx leave no orphans. The child carries a
// reap.Mark, so that what it started and what left the group (setsid,
// setpgid, a dead parent) ends with it too (DESIGN.md F17).
type Stdio struct {
	cmd    *exec.Cmd
	mark   reap.Mark
	hooks  Hooks
	limit  int64 // the largest message taken from the server
	ready  atomic.Bool
	pid    atomic.Int64
	exited chan struct{} // closed once the child has been reaped
	stdin  *os.File
	stderr *os.File // read end; closed by shutdown if still held open
	mu     sync.Mutex
	closed bool
	wait   error // the child's exit status, valid after exited
	wg     sync.WaitGroup
}

// MarkReady records that the handshake completed. Before that, Close
// signals at once instead of granting the stdin grace period: a server still
// initializing is not in the middle of anything worth waiting for.
func (t *Stdio) MarkReady() { t.ready.Store(true) }

// Dir is the directory the process starts in.
func (t *Stdio) Dir() string { return t.cmd.Dir }

// PID is the child's process id, or 0 before Connect.
func (t *Stdio) PID() int { return int(t.pid.Load()) }

// Exited is closed when the child process has exited and been reaped.
func (t *Stdio) Exited() <-chan struct{} { return t.exited }

// ExitErr is the child's exit status; valid after Exited is closed.
func (t *Stdio) ExitErr() error {
	<-t.exited
	return t.wait
}

// Connect starts the process and returns the connection to it.
func (t *Stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW)
		return nil, err
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW)
		return nil, err
	}
	t.cmd.Stdin, t.cmd.Stdout, t.cmd.Stderr = stdinR, stdoutW, stderrW
	procgroup.Set(t.cmd)
	t.mark = reap.NewMark()
	t.cmd.Env = t.mark.Set(t.cmd.Env)
	if err := reap.Start(t.cmd); err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW, stderrR, stderrW)
		return nil, fmt.Errorf("start %s: %w", t.cmd.Path, err)
	}
	// The child holds its own copies now.
	closeAll(stdinR, stdoutW, stderrW)
	t.pid.Store(int64(t.cmd.Process.Pid))

	t.wg.Add(2)
	go func() {
		defer t.wg.Done()
		err := reap.Wait(t.cmd)
		t.mu.Lock()
		t.wait = err
		t.mu.Unlock()
		close(t.exited)
	}()
	t.stderr = stderrR
	go func() {
		defer t.wg.Done()
		readLines(stderrR, maxStderrLine, t.hooks.stderr)
	}()

	calls := &calls{}
	t.stdin = stdinW
	// Closing the connection runs the shutdown sequence, so go-sdk's
	// session Close ends the process.
	return newStdioConn(newJSONLineFilter(stdoutR, t.limit, t.hooks, calls), stdinW, t.shutdown, calls, t.hooks), nil
}

// Close ends the process as the session's Close would. It is for a failed
// handshake, where go-sdk may never have built a session to close; calling
// it after the session closed is a no-op.
func (t *Stdio) Close() error {
	if t.PID() == 0 {
		return nil
	}
	return t.shutdown()
}

// shutdown is close stdin → wait → SIGTERM to the group → wait → SIGKILL to
// the group. Whatever happened, the group is killed at the end so that
// grandchildren that outlived their parent do not stay behind, and then
// reap.End ends every process that left the group: those that carry the
// mark, and the server's descendants as they were when shutdown began.
// It runs whether the host closes the server or the server exited by
// itself (the session's close after a drop comes here too).
func (t *Stdio) shutdown() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		t.awaitExit(killWait)
		return nil
	}
	t.closed = true
	t.mu.Unlock()

	pgid := t.PID()
	var tree []reap.Proc
	select {
	case <-t.exited:
	default:
		// Taken before stdin closes: a server that exits then re-parents
		// its children at once.
		tree = reap.Tree(pgid)
	}
	t.stdin.Close()
	exited := false
	if t.ready.Load() {
		exited = t.awaitExit(StdinGrace)
	}
	if !exited {
		_ = procgroup.Terminate(pgid)
		exited = t.awaitExit(ServerTermGrace)
	}
	_ = procgroup.Kill(pgid)
	if !exited && !t.awaitExit(killWait) {
		_ = reap.End(t.mark, tree)
		t.stderr.Close()
		return fmt.Errorf("process %d did not exit after SIGKILL", pgid)
	}
	// What left the group may hold stderr open: ending it first lets the
	// drain see EOF instead of waiting out its bound.
	endErr := reap.End(t.mark, tree)
	t.drainStderr()
	if endErr != nil {
		return fmt.Errorf("server %d left processes behind: %w", pgid, endErr)
	}
	return nil
}

// drainStderr lets the stderr reader take the last lines, then closes the
// pipe if something outside the process group still holds it open.
func (t *Stdio) drainStderr() {
	read := make(chan struct{})
	go func() {
		t.wg.Wait()
		close(read)
	}()
	timer := time.NewTimer(stderrDrain)
	defer timer.Stop()
	select {
	case <-read:
	case <-timer.C:
		t.stderr.Close()
		<-read
	}
	t.stderr.Close()
}

func (t *Stdio) awaitExit(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.exited:
		return true
	case <-timer.C:
		return false
	}
}

func closeAll(fs ...io.Closer) {
	for _, f := range fs {
		f.Close()
	}
}

// IsExitError reports whether err came from the child exiting.
func IsExitError(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee)
}
