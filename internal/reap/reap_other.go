//go:build !linux

package reap

import (
	"errors"
	"fmt"
)

// Tree finds nothing here: without /proc there is no cheap way to list a
// process's descendants, and the process group covers those that stay in
// it.
func Tree(pid int) []Proc { return nil }

// End does nothing here: only the process group ends (procgroup).
func End(m Mark, known []Proc) error { return nil }

// Subreaper is Linux's alone.
func Subreaper() (release func(), err error) {
	return nil, fmt.Errorf("child subreaper: %w", errors.ErrUnsupported)
}

// awaitExit returns at once here: Wait blocks in cmd.Wait.
func awaitExit(pid int) {}
