package peers

import (
	"path/filepath"
	"testing"
)

// fakeTB records how need stopped a test.
type fakeTB struct {
	testing.TB
	name            string
	skipped, failed bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Name() string          { return f.name }
func (f *fakeTB) Skip(...any)           { f.skipped = true }
func (f *fakeTB) Fatalf(string, ...any) { f.failed = true }

// A missing peer skips its test, counted once per top-level test, unless
// the peers are required: then it fails.
func TestNeedSkipsOrFails(t *testing.T) {
	saved := skipped.tests
	skipped.tests = nil
	t.Cleanup(func() { skipped.tests = saved })
	missing := filepath.Join(t.TempDir(), "node_modules", ".package-lock.json")

	t.Setenv(EnvRequired, "")
	t.Setenv("CI", "")
	for _, name := range []string{"TestA", "TestA/sub", "TestB"} {
		f := &fakeTB{name: name}
		need(f, missing)
		if !f.skipped || f.failed {
			t.Errorf("%s, peers not required: skipped %v, failed %v; want a skip", name, f.skipped, f.failed)
		}
	}
	if n := skipped.count(); n != 2 {
		t.Errorf("counted %d skipped tests; want 2 (TestA and TestB)", n)
	}

	for _, env := range []string{EnvRequired, "CI"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "1")
			f := &fakeTB{name: "TestC"}
			need(f, missing)
			if !f.failed || f.skipped {
				t.Errorf("%s=1: skipped %v, failed %v; want a failure", env, f.skipped, f.failed)
			}
		})
	}
	if n := skipped.count(); n != 2 {
		t.Errorf("counted %d skipped tests after failures; want 2", n)
	}
}
