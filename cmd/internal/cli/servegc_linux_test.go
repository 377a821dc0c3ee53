package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// The cgroup limit is the least of the process's cgroup and those above
// it, in either version; a leaf whose path is not under the mount (a
// container's own view) finds the container's limit at the mount's root.
func TestCgroupMemoryMax(t *testing.T) {
	const unlimitedV1 = "9223372036854771712"
	for _, c := range []struct {
		name, proc string
		files      map[string]string // path under the root → content
		want       int64
	}{
		{"v2 leaf", "0::/app.slice/serve.service\n",
			map[string]string{"app.slice/serve.service/memory.max": "536870912\n", "app.slice/memory.max": "max\n"}, 512 << 20},
		{"v2 parent's limit", "0::/app.slice/serve.service\n",
			map[string]string{"app.slice/serve.service/memory.max": "max\n", "app.slice/memory.max": "268435456\n"}, 256 << 20},
		{"v2 in a container", "0::/system.slice/docker-abc.scope\n",
			map[string]string{"memory.max": "1073741824\n"}, 1 << 30},
		{"v2 none", "0::/user.slice\n",
			map[string]string{"user.slice/memory.max": "max\n"}, 0},
		{"v1", "12:pids:/docker/abc\n9:memory:/docker/abc\n1:name=systemd:/docker/abc\n",
			map[string]string{"memory/docker/abc/memory.limit_in_bytes": "209715200\n", "memory/memory.limit_in_bytes": unlimitedV1}, 200 << 20},
		{"v1 in a container", "4:cpuacct,memory:/kubepods/pod1/c1\n",
			map[string]string{"memory/memory.limit_in_bytes": "134217728\n"}, 128 << 20},
		{"v1 unlimited", "9:memory:/\n",
			map[string]string{"memory/memory.limit_in_bytes": unlimitedV1}, 0},
		{"none", "", nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			proc := filepath.Join(dir, "cgroup")
			if err := os.WriteFile(proc, []byte(c.proc), 0o600); err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(dir, "sys")
			for path, content := range c.files {
				p := filepath.Join(root, path)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if got := cgroupMemoryMax(proc, root); got != c.want {
				t.Errorf("cgroupMemoryMax = %d, want %d", got, c.want)
			}
		})
	}
}
