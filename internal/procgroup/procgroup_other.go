//go:build !unix

package procgroup

import (
	"os"
	"os/exec"
)

func set(cmd *exec.Cmd) {}

func signal(pid int, _ bool) error {
	if pid <= 0 {
		return nil
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
