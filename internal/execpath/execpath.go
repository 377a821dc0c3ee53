// Package execpath finds the program a stdio server's command names: the
// one lookup both internal/transport (to start it) and config/policy (to
// judge it) use, so the policy judges the file that will run (DESIGN.md,
// "Policy").
package execpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotFound is a bare command name found in no PATH directory.
var ErrNotFound = errors.New("executable file not found in PATH")

// maxLinks bounds the symbolic links Links follows, as the kernel does
// (Linux's MAXSYMLINKS is 40).
const maxLinks = 40

// WorkDir is the directory a server starts in: its cwd, taken from base
// when relative, or base when it has none ("" is the current directory).
func WorkDir(cwd, base string) string {
	switch {
	case cwd == "":
		return base
	case filepath.IsAbs(cwd) || base == "":
		return cwd
	}
	return filepath.Join(base, cwd)
}

// OutsideProject is where a stdio server starts while its project is
// untrusted (DESIGN.md, "Trust"): home, the person's own, when it is a
// directory; else the file system's root, where a server finds nothing of
// anybody's. The host starts servers there and policy judges them there,
// so both must ask this one function.
func OutsideProject(home string) string {
	if filepath.IsAbs(home) {
		if fi, err := os.Stat(home); err == nil && fi.IsDir() {
			return home
		}
	}
	return string(filepath.Separator)
}

// SearchPaths are the PATH lists a bare command name is looked up in, in
// order: the server's own env PATH when it sets one, as it would be in the
// server's shell, then the host's PATH, which the server inherits when it
// sets none.
func SearchPaths(env map[string]string, hostPATH string) []string {
	var paths []string
	if p, ok := env["PATH"]; ok {
		paths = append(paths, p)
	}
	return append(paths, hostPATH)
}

// Find returns the absolute path of the program command runs from dir. A
// command with a path separator is that file, taken from dir when
// relative. A bare name is looked up in each PATH list of paths in turn;
// an empty or relative entry is skipped, as os/exec refuses a program
// found through one (exec.ErrDot), so what runs never depends on the
// directory. The file must be a regular, executable file.
func Find(command, dir string, paths ...string) (string, error) {
	if command == "" {
		return "", errors.New("no command")
	}
	if strings.ContainsRune(command, '/') || strings.ContainsRune(command, filepath.Separator) {
		p := command
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		for _, c := range candidates(abs) {
			if err := executable(c); err == nil {
				return c, nil
			} else if c == abs {
				return "", err
			}
		}
		return "", &fs.PathError{Op: "exec", Path: abs, Err: fs.ErrNotExist}
	}
	for _, list := range paths {
		for _, d := range filepath.SplitList(list) {
			if d == "" || !filepath.IsAbs(d) {
				continue
			}
			for _, c := range candidates(filepath.Join(d, command)) {
				if executable(c) == nil {
					return c, nil
				}
			}
		}
	}
	return "", fmt.Errorf("%q: %w", command, ErrNotFound)
}

// executable reports why the file at p cannot be run, or nil.
func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "exec", Path: p, Err: errors.New("not a regular file")}
	}
	if !isExecutable(fi) {
		return &fs.PathError{Op: "exec", Path: p, Err: fs.ErrPermission}
	}
	return nil
}

// Links returns path and each path the symbolic links on the way from it
// lead to, ending with the file itself: for /usr/bin/npx, that path, then
// /usr/lib/node_modules/npm/bin/npx-cli.js. Every element names the same
// program. Each step's folder is resolved first (and listed when that
// changes the path), so a relative link is read as the kernel reads it. A
// link that cannot be read ends the list where it is.
func Links(path string) []string {
	out := []string{filepath.Clean(path)}
	cur := out[0]
	for range maxLinks {
		dir, err := filepath.EvalSymlinks(filepath.Dir(cur))
		if err != nil {
			break
		}
		if phys := filepath.Join(dir, filepath.Base(cur)); phys != cur {
			cur = phys // /bin/sh where /bin links to usr/bin is /usr/bin/sh
			out = append(out, cur)
		}
		fi, err := os.Lstat(cur)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			break
		}
		target, err := os.Readlink(cur)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		cur = filepath.Clean(target)
		out = append(out, cur)
	}
	if final, err := filepath.EvalSymlinks(path); err == nil && final != out[len(out)-1] {
		out = append(out, final)
	}
	return out
}
