package peers

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/term"
)

// skipped are the tests of this process that skipped for want of the
// peers, by top-level name.
var skipped skips

// skippedPromtool are those that skipped for want of promtool.
var skippedPromtool skips

type skips struct {
	mu    sync.Mutex
	tests map[string]bool
}

func (s *skips) note(name string) {
	top, _, _ := strings.Cut(name, "/")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tests == nil {
		s.tests = map[string]bool{}
	}
	s.tests[top] = true
}

func (s *skips) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tests)
}

// Runner is what TestMain runs: *testing.M, or Reporting's wrapper of it,
// which goleak.VerifyTestMain takes as it takes *testing.M.
type Runner interface{ Run() int }

// Reporting returns m for a package's TestMain, whose Run, once the tests
// ran, says in one line how many skipped because the npm peers are not
// installed, so a run that prints "ok" does not hide that it tested no
// interop:
//
//	goleak.VerifyTestMain(peers.Reporting(m))
func Reporting(m Runner) Runner { return reporting{m} }

type reporting struct{ m Runner }

func (r reporting) Run() int {
	code := r.m.Run()
	if n := skipped.count(); n > 0 {
		dir, _ := dirPath()
		w, done := reportTo()
		fmt.Fprintf(w, "peers: %d %s in %s skipped: npm peers not installed in %s (make peers)\n",
			n, plural(n, "test", "tests"), packageDir(), dir)
		done()
	}
	if n := skippedPromtool.count(); n > 0 {
		w, done := reportTo()
		fmt.Fprintf(w, "peers: %d %s in %s skipped: promtool not on PATH (make promtool)\n",
			n, plural(n, "test", "tests"), packageDir())
		done()
	}
	return code
}

// reportTo is where the line goes: stderr when it is a terminal, else
// the controlling terminal when there is one, because `go test ./...`
// prints only "ok" for a package that passed and drops what its test
// binary wrote; stderr again when there is none (CI, an IDE, which show
// it with -v or -json).
func reportTo() (io.Writer, func()) {
	if term.IsTerminal(int(os.Stderr.Fd())) {
		return os.Stderr, func() {}
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return os.Stderr, func() {}
	}
	return tty, func() { tty.Close() }
}

// packageDir names the package under test: go test runs its binary in the
// package's folder, shown from the module's root.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	root, err := ModuleRoot()
	if err != nil {
		return wd
	}
	if rel, err := filepath.Rel(root, wd); err == nil {
		return filepath.ToSlash(rel)
	}
	return wd
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
