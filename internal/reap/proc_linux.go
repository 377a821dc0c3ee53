package reap

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// stat is what /proc/<pid>/stat says of a process that End and the
// reaper need.
type stat struct {
	pid, ppid int
	state     byte   // R, S, D, Z (zombie), X (dead), …
	start     uint64 // starttime, clock ticks after boot
}

func (s stat) proc() Proc { return Proc{PID: s.pid, start: s.start} }

// exited reports whether the process has ended: a zombie waits only for
// its parent to collect its status.
func (s stat) exited() bool { return s.state == 'Z' || s.state == 'X' }

func readStat(pid int) (stat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields start after the last ')'. f[0] is field 3 of proc(5),
	// the state; f[1] the ppid; f[19] field 22, starttime.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return stat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return stat{}, false
	}
	return stat{pid: pid, ppid: ppid, state: f[0][0], start: start}, true
}

// allStats reads every process's stat; one that ends meanwhile is left out.
func allStats() []stat {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make([]stat, 0, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid <= 0 {
			continue
		}
		if s, ok := readStat(pid); ok {
			out = append(out, s)
		}
	}
	return out
}

// hasMark reports whether the process's environment carries m. Another
// user's process cannot be read, and a zombie's environment is empty.
func hasMark(pid int, m Mark) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := m.Env()
	for len(data) > 0 {
		var kv []byte
		kv, data, _ = bytes.Cut(data, []byte{0})
		if string(kv) == want {
			return true
		}
	}
	return false
}

// pidfdTargets returns the pids this process holds a pidfd for. Go's os
// package holds one for every child os.StartProcess started (Go 1.23 and
// later, Linux 5.4 and later) until Wait, so a zombie among them is an
// os/exec child of the embedding program, whose status is its Wait's.
func pidfdTargets() map[int]bool {
	out := map[int]bool{}
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return out
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, fd := range names {
		if link, err := os.Readlink("/proc/self/fd/" + fd); err != nil || link != "anon_inode:[pidfd]" {
			continue
		}
		info, err := os.ReadFile("/proc/self/fdinfo/" + fd)
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(info)) {
			if v, ok := strings.CutPrefix(line, "Pid:"); ok {
				if pid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && pid > 0 {
					out[pid] = true
				}
			}
		}
	}
	return out
}
