package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// A running `switchboard serve` says so in a file of its own under the
// state directory (serve/PID.json), removed when it ends, so `list` can
// tell a person what is being served and where.

// serveStatus is one running serve.
type serveStatus struct {
	PID     int       `json:"pid"`
	Address string    `json:"address"` // http://…/mcp, or "stdio"
	Started time.Time `json:"started"`
	Servers []string  `json:"servers"`
}

func serveStatusDir(stateDir string) string { return filepath.Join(stateDir, "serve") }

// writeServeStatus records this process's serve and returns the function
// that removes the record.
func writeServeStatus(stateDir string, st serveStatus) func() {
	if stateDir == "" {
		return func() {}
	}
	dir := serveStatusDir(stateDir)
	path := filepath.Join(dir, strconv.Itoa(st.PID)+".json")
	data, err := json.Marshal(st)
	if err != nil || os.MkdirAll(dir, 0o700) != nil || safefile.WriteAtomic(path, data, 0o600) != nil {
		return func() {}
	}
	return func() { os.Remove(path) }
}

// runningServes reads the records of serves whose process still runs; a
// record left by one that died is removed.
func runningServes(stateDir string) []serveStatus {
	if stateDir == "" {
		return nil
	}
	entries, err := safefile.ReadDirLimited(serveStatusDir(stateDir), 256)
	if err != nil {
		return nil
	}
	var out []serveStatus
	for _, e := range entries {
		path := filepath.Join(serveStatusDir(stateDir), e.Name())
		data, err := safefile.ReadLimited(path, 64<<10)
		if err != nil {
			continue
		}
		var st serveStatus
		if json.Unmarshal(data, &st) != nil || st.PID <= 0 {
			continue
		}
		if !processRuns(st.PID) {
			os.Remove(path)
			continue
		}
		out = append(out, st)
	}
	return out
}

func processRuns(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// noteServes tells a person on a terminal what running serves offer.
func (ios IO) noteServes(stateDir string) {
	for _, st := range runningServes(stateDir) {
		ios.note(fmt.Sprintf("switchboard serve (pid %d) is serving %d servers at %s", st.PID, len(st.Servers), termsafe.Line(st.Address)))
	}
}
