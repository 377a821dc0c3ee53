//go:build linux

package gateway_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// Bounds of the stress test's waits: generous for a 2-core machine under
// -race, where 20 race-built demo servers share the cores with the test.
const (
	// stressCallTimeout bounds every call: one that reaches it hung.
	stressCallTimeout = 20 * time.Second
	// stressCancelEnd is how long a cancelled call may take to return.
	stressCancelEnd = 10 * time.Second
	// stressReconnect bounds a killed server's way back to connected.
	stressReconnect = 20 * time.Second
	// stressSettle bounds the wait for the gateway to drop the calls it
	// tracks once every client has its answer.
	stressSettle = 10 * time.Second
	// stressGone bounds the wait for a server process to be gone once the
	// host is closed.
	stressGone = 10 * time.Second
	// stressSleepMS is a cancelled sleep's length: far longer than the
	// test, so only its cancellation can end it in time.
	stressSleepMS = 60_000
	// stressNapMS is a sleep left to finish, long enough that a kill may
	// land during it.
	stressNapMS = 300
)

// pidBook is every process id each server has had, as the host reported
// it before the test killed it, or at the end.
type pidBook struct {
	mu   sync.Mutex
	pids map[int]string
}

func (b *pidBook) note(h *host.Host) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, st := range h.Status() {
		if st.PID != 0 {
			b.pids[st.PID] = st.Name
		}
	}
}

func (b *pidBook) server(pid int) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	name, ok := b.pids[pid]
	return name, ok
}

// outcome is what one call ended with, for the checks after the run.
type outcome struct {
	client, call int
	kind, server string
	took         time.Duration
	err          error
	text         string
	isError      bool
}

// TestStress runs many clients of both eras against one gateway over
// HTTP in front of 20 demo servers, while servers are killed and come
// back: every call ends, every echo answer is the caller's own text (or
// an error naming the server), the pid tool answers from the server
// called, cancelled sleeps end, and no server process outlives the host.
func TestStress(t *testing.T) {
	servers, clients, calls, kills := 20, 8, 50, 6
	if testing.Short() {
		servers, clients, calls, kills = 6, 4, 15, 2
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)

	book := &pidBook{pids: map[int]string{}}
	// Registered before serve, so it runs after serve's cleanup has
	// closed the host.
	t.Cleanup(func() { awaitGone(t, book) })

	configs := make([]config.ServerConfig, servers)
	for i := range configs {
		configs[i] = demoServer(t, fmt.Sprintf("s%02d", i))
	}
	began := time.Now()
	s := serve(t, gateway.HTTPOptions{}, configs...)
	for _, st := range s.h.Status() {
		if st.State != host.StateConnected {
			t.Fatalf("%s: %s %s", st.Name, st.State, st.Error)
		}
	}
	book.note(s.h)
	t.Logf("%d servers up in %s", servers, time.Since(began).Round(time.Millisecond))

	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		version := config.ProtocolLegacy
		if i%2 == 1 {
			version = "" // the newest
		}
		sessions[i] = s.clientAt(t, "", nil, version)
		t.Logf("client %d speaks %s", i, sessions[i].InitializeResult().ProtocolVersion)
	}

	killed := make(chan struct{})
	var killErr error
	var killedNames []string
	go func() {
		defer close(killed)
		killedNames, killErr = killAtRandom(s.h, book, kills, rand.New(rand.NewPCG(seed, 99)))
	}()

	results := make([][]outcome, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(c)))
			for i := range calls {
				results[c] = append(results[c], stressCall(sessions[c], c, i, servers, rng))
			}
		})
	}
	wg.Wait()
	<-killed
	if killErr != nil {
		t.Error(killErr)
	}
	book.note(s.h)
	t.Logf("calls done in %s; killed %v", time.Since(began).Round(time.Millisecond), killedNames)

	counts := map[string]int{}
	var slowest time.Duration
	for _, rs := range results {
		for _, o := range rs {
			slowest = max(slowest, o.took)
			verdict := checkOutcome(o, book)
			if counts[o.kind+" "+verdict]++; counts[o.kind+" "+verdict] == 1 && verdict == "error naming the server" {
				t.Logf("e.g. %s on %s: err %v, text %q", o.kind, o.server, o.err, o.text)
			}
			if strings.HasPrefix(verdict, "BAD") {
				t.Errorf("client %d call %d (%s on %s, %s): %s: err %v, text %q", o.client, o.call, o.kind, o.server, o.took, verdict, o.err, o.text)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		t.Logf("%5d  %s", counts[k], k)
	}
	t.Logf("slowest call %s", slowest.Round(time.Millisecond))

	// Every call has ended for its client: what the gateway still holds
	// is a call whose cancellation did not reach the host.
	deadline := time.Now().Add(stressSettle)
	var rounds, sessionCallers, roundCallers int
	for {
		rounds, sessionCallers, roundCallers = s.gw.InFlight()
		if sessionCallers == 0 && rounds == 0 && roundCallers == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // polled, bounded by deadline
	}
	if sessionCallers > 0 {
		t.Errorf("after the last call the gateway still holds %d calls of 2025-11-25 clients", sessionCallers)
	}
	if rounds > 0 || roundCallers > 0 {
		t.Errorf("after the last call the gateway still holds %d rounds (%d upstream calls) of 2026-07-28 clients", rounds, roundCallers)
	}
}

// stressCall makes one call of client c on a random server: mostly echo
// with a text of the call's own, else the pid tool, else a long sleep
// cancelled a little after it starts.
func stressCall(sess *mcp.ClientSession, c, i, servers int, rng *rand.Rand) outcome {
	o := outcome{client: c, call: i, server: fmt.Sprintf("s%02d", rng.IntN(servers))}
	ctx, cancel := context.WithTimeout(context.Background(), stressCallTimeout)
	defer cancel()
	params := &mcp.CallToolParams{}
	var cancelAt time.Duration
	switch p := rng.IntN(100); {
	case p < 80:
		o.kind = "echo"
		o.text = fmt.Sprintf("client %d call %d %x", c, i, rng.Uint64())
		params.Name, params.Arguments = o.server+"__echo", map[string]any{"text": o.text}
	case p < 88:
		o.kind = "pid"
		params.Name = o.server + "__pid"
	case p < 94:
		// A short sleep left to finish: the call most likely in flight
		// when its server is killed.
		o.kind = "nap"
		params.Name, params.Arguments = o.server+"__sleep", map[string]any{"ms": stressNapMS}
	default:
		o.kind = "sleep"
		params.Name, params.Arguments = o.server+"__sleep", map[string]any{"ms": stressSleepMS}
		cancelAt = time.Duration(5+rng.IntN(300)) * time.Millisecond
		var cancelSleep context.CancelFunc
		ctx, cancelSleep = context.WithCancel(ctx)
		defer cancelSleep()
		time.AfterFunc(cancelAt, cancelSleep)
	}
	start := time.Now()
	res, err := sess.CallTool(ctx, params)
	o.took = time.Since(start)
	sent := o.text
	o.err, o.text = err, ""
	if res != nil {
		o.text, o.isError = textOf(res), res.IsError
	}
	if o.kind == "echo" {
		// Keep what was sent beside what came back.
		o.text = sent + "\x00" + o.text
	}
	return o
}

// checkOutcome judges one call: "ok", "error naming the server" and the
// like, or a verdict starting BAD.
func checkOutcome(o outcome, book *pidBook) string {
	if errors.Is(o.err, context.DeadlineExceeded) || o.took >= stressCallTimeout {
		return "BAD: hung"
	}
	failure := func() string {
		msg := o.text
		if o.err != nil {
			msg = o.err.Error()
		}
		if strings.Contains(msg, o.server) {
			return "error naming the server"
		}
		return "BAD: an error that does not name the server"
	}
	switch o.kind {
	case "echo":
		sent, got, _ := strings.Cut(o.text, "\x00")
		switch {
		case o.err != nil || o.isError:
			return failure()
		case got == sent:
			return "ok"
		case strings.HasPrefix(got, "client "):
			return "BAD: another call's text"
		}
		return "BAD: not the text sent"
	case "pid":
		if o.err != nil || o.isError {
			return failure()
		}
		pid, err := strconv.Atoi(o.text)
		if err != nil {
			return "BAD: not a pid"
		}
		if name, ok := book.server(pid); !ok {
			return "BAD: a pid the host never reported"
		} else if name != o.server {
			return "BAD: answered by " + name
		}
		return "ok"
	case "nap":
		switch {
		case o.err != nil || o.isError:
			return failure()
		case o.text == fmt.Sprintf("slept %d ms", stressNapMS):
			return "ok"
		}
		return "BAD: not its own answer"
	case "sleep":
		switch {
		case o.err == nil && !o.isError:
			return "BAD: a cancelled sleep succeeded"
		case o.took > stressCancelEnd:
			return "BAD: took too long to end once cancelled"
		case errors.Is(o.err, context.Canceled):
			return "cancelled"
		}
		return failure()
	}
	return "BAD: unknown kind"
}

// killAtRandom kills a connected server's process n times, each time
// waiting for the host to report it connected again with a new process.
func killAtRandom(h *host.Host, book *pidBook, n int, rng *rand.Rand) ([]string, error) {
	var names []string
	for range n {
		// Spread the kills over the clients' calls.
		time.Sleep(time.Duration(200+rng.IntN(600)) * time.Millisecond)
		var up []host.Status
		for _, st := range h.Status() {
			if st.State == host.StateConnected && st.PID != 0 {
				up = append(up, st)
			}
		}
		if len(up) == 0 {
			return names, errors.New("no server connected to kill")
		}
		victim := up[rng.IntN(len(up))]
		book.note(h)
		if err := syscall.Kill(victim.PID, syscall.SIGKILL); err != nil {
			return names, fmt.Errorf("kill %s (pid %d): %w", victim.Name, victim.PID, err)
		}
		names = append(names, victim.Name)
		deadline := time.Now().Add(stressReconnect)
		for {
			st := statusOf(h, victim.Name)
			if st.State == host.StateConnected && st.PID != 0 && st.PID != victim.PID {
				book.note(h)
				break
			}
			if time.Now().After(deadline) {
				return names, fmt.Errorf("%s not back %s after its kill: %s %s", victim.Name, stressReconnect, st.State, st.Error)
			}
			time.Sleep(10 * time.Millisecond) // polled, bounded by deadline
		}
	}
	return names, nil
}

func statusOf(h *host.Host, name string) host.Status {
	for _, st := range h.Status() {
		if st.Name == name {
			return st
		}
	}
	return host.Status{}
}

// awaitGone fails t for every server process still there a while after
// the host closed: one running as its server (its command line says
// --name NAME), or a zombie of this process's that nobody reaped.
func awaitGone(t *testing.T, book *pidBook) {
	book.mu.Lock()
	pids := maps.Clone(book.pids)
	book.mu.Unlock()
	deadline := time.Now().Add(stressGone)
	for len(pids) > 0 {
		for pid, name := range pids {
			if !serverProcess(pid, name) {
				delete(pids, pid)
			}
		}
		if len(pids) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // polled, bounded by deadline
	}
	for pid, name := range pids {
		t.Errorf("server %s (pid %d) is still there %s after the host closed", name, pid, stressGone)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// serverProcess reports whether pid is still server name's process: its
// command line names it, or it is an unreaped child of this process.
func serverProcess(pid int, name string) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	if bytes.Contains(cmdline, []byte("\x00--name\x00"+name+"\x00")) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ppid …; comm may hold spaces, so split after ')'.
	_, rest, _ := bytes.Cut(stat, []byte(") "))
	f := strings.Fields(string(rest))
	return len(f) >= 2 && f[0] == "Z" && f[1] == strconv.Itoa(os.Getpid())
}
