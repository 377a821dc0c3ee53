//go:build windows

package execpath

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// candidates are the files a command path may name on Windows: itself
// when it has an extension, then with each of %PATHEXT%'s, as os/exec's
// LookPath tries them.
func candidates(p string) []string {
	exts := os.Getenv("PATHEXT")
	if exts == "" {
		exts = ".com;.exe;.bat;.cmd"
	}
	var out []string
	if filepath.Ext(p) != "" {
		out = append(out, p)
	}
	for _, e := range strings.Split(strings.ToLower(exts), ";") {
		if e != "" && e[0] == '.' {
			out = append(out, p+e)
		}
	}
	return out
}

// isExecutable: Windows has no execute bit; the extension decided.
func isExecutable(fs.FileInfo) bool { return true }
