package redistest

import "syscall"

// sysAttr kills redis-server when the test process dies before its
// cleanup runs (a test's timeout panics, a kill): no server outlives
// its test binary.
func sysAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
