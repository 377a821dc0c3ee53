//go:build unix

package demo

import (
	"os/exec"
	"syscall"
)

// leaveGroup makes cmd start outside the server's process group: how is
// "setsid" (a session of its own), "setpgid" (a group of its own) or ""
// (stay).
func leaveGroup(cmd *exec.Cmd, how string) error {
	switch how {
	case "setsid":
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	case "setpgid":
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	return nil
}
