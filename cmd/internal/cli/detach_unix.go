//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

// detach makes cmd a session of its own: no terminal's hangup or
// interrupt reaches it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
