//go:build !unix

package demo

import (
	"errors"
	"os/exec"
)

// leaveGroup: process groups are Unix's.
func leaveGroup(_ *exec.Cmd, how string) error {
	if how != "" {
		return errors.New("--grandchild-leaves needs Unix")
	}
	return nil
}
