//go:build !unix && !windows

package safefile

// lockDir is a no-op where the platform has no advisory locks (wasm,
// plan9): edits there are not guarded against other processes.
func lockDir(string) (func(), error) { return func() {}, nil }
