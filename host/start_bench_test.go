package host_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testkit/benchcall"
)

// startSizes are the numbers of servers the start-up benchmarks start.
var startSizes = []int{1, 10, 50, 100}

// BenchmarkStart measures Start without a cache — it returns once every
// server is connected with its tools — against bare go-sdk clients that
// connect the same demo servers in parallel: "bare" only connects (a
// session each), "bare+tools" also lists each server's tools, the least a
// client that offers them does. Each iteration runs the three, in turns,
// so the machine's drift falls on all alike; it reports each one's median
// wall time, the process's own CPU (children excluded), and the medians
// of each iteration's ratios.
func BenchmarkStart(b *testing.B) {
	for _, n := range startSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			configs := demoServers(b, n)
			type side struct {
				name string
				run  func(*testing.B, []config.ServerConfig) (wall, cpu float64)
				ms   []float64
				cpu  []float64
			}
			sides := []*side{
				{name: "host", run: startHostOnce},
				{name: "bare", run: func(b *testing.B, c []config.ServerConfig) (float64, float64) { return startBareOnce(b, c, false) }},
				{name: "bare+tools", run: func(b *testing.B, c []config.ServerConfig) (float64, float64) { return startBareOnce(b, c, true) }},
			}
			var toBare, toBareTools []float64
			i := 0
			for b.Loop() {
				for j := range sides {
					s := sides[(i+j)%len(sides)]
					wall, cpu := s.run(b, configs)
					s.ms, s.cpu = append(s.ms, wall), append(s.cpu, cpu)
				}
				toBare = append(toBare, sides[0].ms[i]/sides[1].ms[i])
				toBareTools = append(toBareTools, sides[0].ms[i]/sides[2].ms[i])
				i++
			}
			for _, s := range sides {
				b.ReportMetric(median(s.ms), s.name+"-ms")
				if benchcall.CPUMeasured {
					b.ReportMetric(median(s.cpu), s.name+"-cpu-ms")
				}
			}
			b.ReportMetric(median(toBare), "host/bare")
			b.ReportMetric(median(toBareTools), "host/bare+tools")
		})
	}
}

// BenchmarkStartWarm measures Start with every server's tools in the
// cache: it should answer at the startup gate (or sooner, when every
// server connects first), whatever the number of servers. over-gate-ms
// is how far past the gate it answered; 0 when it answered before.
func BenchmarkStartWarm(b *testing.B) {
	for _, n := range []int{1, 50, 100} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			configs := demoServers(b, n)
			dir := b.TempDir()
			fill := host.New(&host.Options{CacheDir: dir})
			if err := fill.Start(context.Background(), configs); err != nil {
				b.Fatal(err)
			}
			fill.Close() // the supervisors store the tools before they end
			var ms []float64
			for b.Loop() {
				h := host.New(&host.Options{CacheDir: dir})
				began := time.Now()
				if err := h.Start(context.Background(), configs); err != nil {
					b.Fatal(err)
				}
				ms = append(ms, msSince(began))
				if got := len(h.Tools().Tools); got < 8*n {
					b.Fatalf("%d tools for %d servers", got, n)
				}
				h.Close()
			}
			m := median(ms)
			b.ReportMetric(m, "start-ms")
			b.ReportMetric(max(0, m-msOf(host.DefaultStartupGate)), "over-gate-ms")
		})
	}
}

func demoServers(b *testing.B, n int) []config.ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	return demoConfigs(exe, n)
}

// demoConfigs is n demo servers run by exe, the test binary.
func demoConfigs(exe string, n int) []config.ServerConfig {
	configs := make([]config.ServerConfig, n)
	for i := range configs {
		configs[i] = demoConfig(exe, fmt.Sprintf("s%03d", i))
	}
	return configs
}

// startHostOnce starts a host on configs and returns how long Start took
// and the CPU the process spent meanwhile, in milliseconds.
func startHostOnce(b *testing.B, configs []config.ServerConfig) (wall, cpu float64) {
	h := host.New(nil)
	defer h.Close()
	began, cpuBegan := time.Now(), benchcall.CPUTime()
	if err := h.Start(context.Background(), configs); err != nil {
		b.Fatal(err)
	}
	wall, cpu = msSince(began), msOf(benchcall.CPUTime()-cpuBegan)
	for _, st := range h.Status() {
		if st.State != host.StateConnected {
			b.Fatalf("%s: %+v", st.Name, st)
		}
	}
	return wall, cpu
}

// startBareOnce connects a go-sdk client session to every server at once,
// as a program that needs no host would, listing each one's tools if
// tools is set, and returns what startHostOnce does.
func startBareOnce(b *testing.B, configs []config.ServerConfig, tools bool) (wall, cpu float64) {
	began, cpuBegan := time.Now(), benchcall.CPUTime()
	closeAll, err := connectBare(configs, tools)
	wall, cpu = msSince(began), msOf(benchcall.CPUTime()-cpuBegan)
	closeAll()
	if err != nil {
		b.Fatal(err)
	}
	return wall, cpu
}

// connectBare connects a session to each server, all at once, lists its
// tools if tools is set, and returns a function that closes them all.
func connectBare(configs []config.ServerConfig, tools bool) (closeAll func(), err error) {
	sessions := make([]*mcp.ClientSession, len(configs))
	errs := make([]error, len(configs))
	var wg sync.WaitGroup
	for i, cfg := range configs {
		wg.Go(func() {
			ctx := context.Background()
			client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
			cmd := exec.Command(cfg.Command, cfg.Args...)
			cmd.Env = append(os.Environ(), demo.EnvServerMode+"=1")
			sessions[i], errs[i] = client.Connect(ctx,
				&mcp.CommandTransport{Command: cmd, TerminateDuration: benchTerminate},
				&mcp.ClientSessionOptions{ProtocolVersion: host.ProtocolVersion})
			if errs[i] == nil && tools {
				_, errs[i] = sessions[i].ListTools(ctx, nil)
			}
		})
	}
	wg.Wait()
	return func() {
		for _, s := range sessions {
			if s != nil {
				wg.Go(func() { s.Close() })
			}
		}
		wg.Wait()
	}, errors.Join(errs...)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func msSince(t time.Time) float64 { return msOf(time.Since(t)) }
