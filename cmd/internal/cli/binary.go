package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
)

// installHint is how to get a switchboard binary that stays put.
const installHint = "install it with 'go install github.com/switchboard-mcp/switchboard/cmd/switchboard@latest' or build it with 'go build -o ~/bin/switchboard ./cmd/switchboard', or name the binary with --command PATH"

// switchboardBinary is the absolute path a client app's entry launches
// (DESIGN.md F59): command when given, else this process's own binary,
// links resolved. A binary inside go's build cache (a 'go run', a test)
// is refused: go removes it, and the app would fail to start it later.
func switchboardBinary(command string) (string, error) {
	if command != "" {
		abs, err := filepath.Abs(command)
		if err != nil {
			return "", err
		}
		fi, err := os.Stat(abs)
		switch {
		case err != nil:
			return "", usagef("--command %s: %v", termsafe.Line(command), errors.Unwrap(err))
		case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0:
			return "", usagef("--command %s: not an executable file", termsafe.Line(command))
		}
		return abs, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot tell where this switchboard is (%v); name the binary with --command PATH", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if inBuildCache(exe) {
		return "", fmt.Errorf("this switchboard runs from go's build cache (%s), which go deletes; %s", termsafe.Line(exe), installHint)
	}
	return exe, nil
}

// inBuildCache reports whether path is under a folder go builds into:
// $GOCACHE (~/.cache/go-build, where go run keeps binaries since Go
// 1.24) or a go-build temporary work folder.
func inBuildCache(path string) bool {
	for _, part := range strings.Split(filepath.ToSlash(path), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}
