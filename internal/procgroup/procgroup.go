// Package procgroup starts a command in a process group of its own and
// signals the whole group, so that a server's (or a secret helper's)
// children end with it. It is the one place that knows how each platform
// does that (DESIGN.md, "Processes").
package procgroup

import "os/exec"

// Set makes cmd start as the leader of a new process group; call it before
// cmd.Start. It keeps any other SysProcAttr fields cmd already has.
func Set(cmd *exec.Cmd) { set(cmd) }

// Terminate asks every process in the group led by pid to end (SIGTERM on
// Unix). On Windows, which has no such request for a console program, it
// does what Kill does.
func Terminate(pid int) error { return signal(pid, false) }

// Kill ends every process in the group led by pid at once (SIGKILL on
// Unix; on Windows, the leader only: Windows has no process groups to
// kill, and its job objects are not used here).
func Kill(pid int) error { return signal(pid, true) }
