package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/config/discover"
	"github.com/switchboard-mcp/switchboard/host"
)

// refuseNested refuses to serve when a switchboard started this process as
// one of its servers: a client config that lists switchboard itself,
// discovered by a switchboard, would otherwise start one switchboard
// inside another without end (issue 22, item 10). Two signs, either
// enough: host.EnvStartedBy, which every server a host starts finds set,
// and, where /proc shows it, a `switchboard serve` among this process's
// parents, which no environment change (env -u, env -i) hides.
func refuseNested(ios IO) error {
	pid, ok := ios.LookupEnv(host.EnvStartedBy)
	if !ok || pid == "" {
		p, found := servingAncestor()
		if !found {
			return nil
		}
		pid = strconv.Itoa(p)
	}
	return fmt.Errorf("serve failed: switchboard was started by switchboard (pid %s) as one of its own servers, and does not run inside itself; remove the entry that starts 'switchboard serve' from the config that lists it (see 'switchboard sources')", oneLine(pid))
}

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 64

// servingAncestor is the pid of a parent process (at any distance) whose
// command line is `switchboard serve`, read as discovery reads an entry
// (discover.StartsSwitchboardServe). It reads /proc, and finds nothing
// where there is none.
func servingAncestor() (int, bool) {
	pid := os.Getppid()
	for range maxAncestors {
		if pid <= 1 {
			return 0, false
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			return 0, false
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if discover.StartsSwitchboardServe(args[0], args[1:]) {
			return pid, true
		}
		pid = parentOf(pid)
	}
	return 0, false
}

// parentOf is a process's parent pid from /proc/PID/stat, 0 when unknown.
func parentOf(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …: comm may hold spaces and parentheses.
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	fields := strings.Fields(rest)
	if len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}
