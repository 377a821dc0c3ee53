package trust

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestHash(t *testing.T) {
	a := []ProjectFile{{Path: "/p/a", Data: []byte("x")}, {Path: "/p/b", Data: []byte("y")}}
	b := []ProjectFile{a[1], a[0]}
	if Hash(a) != Hash(b) {
		t.Error("hash depends on order")
	}
	for _, other := range [][]ProjectFile{
		{{Path: "/p/a", Data: []byte("x")}},
		{{Path: "/p/a", Data: []byte("xy")}},
		{{Path: "/p/a", Data: []byte("x")}, {Path: "/p/b", Data: []byte("z")}},
		{{Path: "/p/a", Data: []byte("x")}, {Path: "/p/c", Data: []byte("y")}},
		{{Path: "/p/ax", Data: nil}, {Path: "/p/b", Data: []byte("y")}},
	} {
		if Hash(other) == Hash(a) {
			t.Errorf("%v hashes like %v", other, a)
		}
	}
}

func TestTrustProjectConcurrent(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	files := []ProjectFile{{Path: "/p/.mcp.json", Data: []byte("{}")}}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Record(state, filepath.Join("/projects", string(rune('a'+i))), files); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i := range 8 {
		ok, err := IsTrusted(state, filepath.Join("/projects", string(rune('a'+i))), files)
		if !ok || err != nil {
			t.Errorf("project %d: %v, %v", i, ok, err)
		}
	}
	if ok, _ := IsTrusted(state, "/projects/z", files); ok {
		t.Error("an unknown project is trusted")
	}
	entries, _ := os.ReadDir(state)
	for _, e := range entries {
		if e.Name() != FileName && e.Name() != FileName+".lock" {
			t.Errorf("left behind %s", e.Name())
		}
	}
}

func TestListAndRevoke(t *testing.T) {
	dir := t.TempDir()
	if got, err := List(dir); err != nil || len(got) != 0 {
		t.Fatalf("List of nothing = %v, %v", got, err)
	}
	for _, p := range []string{"/b", "/a"} {
		if err := Record(dir, p, []ProjectFile{{Path: p + "/.mcp.json", Data: []byte("{}")}}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := List(dir)
	if err != nil || len(got) != 2 || got[0].Project != "/a" || got[1].Files[0] != "/b/.mcp.json" {
		t.Fatalf("List = %+v, %v", got, err)
	}
	if ok, err := Revoke(dir, "/a"); !ok || err != nil {
		t.Fatalf("Revoke(/a) = %v, %v", ok, err)
	}
	if ok, err := Revoke(dir, "/a"); ok || err != nil {
		t.Fatalf("Revoke(/a) again = %v, %v", ok, err)
	}
	if ok, _ := IsTrusted(dir, "/a", []ProjectFile{{Path: "/a/.mcp.json", Data: []byte("{}")}}); ok {
		t.Error("/a is still trusted")
	}
	if ok, _ := IsTrusted(dir, "/b", []ProjectFile{{Path: "/b/.mcp.json", Data: []byte("{}")}}); !ok {
		t.Error("/b lost its trust")
	}
}
