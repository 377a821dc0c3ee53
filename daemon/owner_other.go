//go:build !unix

package daemon

import "io/fs"

// fileUID cannot tell a file's owner here.
func fileUID(fs.FileInfo) (int, bool) { return 0, false }
