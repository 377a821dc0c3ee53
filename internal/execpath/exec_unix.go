//go:build !windows

package execpath

import "io/fs"

// candidates are the files a command path may name: itself.
func candidates(p string) []string { return []string{p} }

// isExecutable: some execute bit is set, as os/exec's LookPath asks.
func isExecutable(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o111 != 0 }
