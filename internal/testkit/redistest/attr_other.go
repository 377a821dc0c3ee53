//go:build !linux

package redistest

import "syscall"

// sysAttr is nothing where there is no parent-death signal: the
// cleanup alone stops the server.
func sysAttr() *syscall.SysProcAttr { return nil }
