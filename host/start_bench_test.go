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
)

// startSizes are the numbers of servers the start-up benchmarks start.
var startSizes = []int{1, 10, 50, 100}

// BenchmarkStart measures Start without a cache — it returns once every
// server is connected with its tools — against a bare go-sdk client that
// connects the same demo servers in parallel (a session each, nothing
// listed). Each iteration runs both, taking turns at going first, so the
// machine's drift falls on both alike; it reports each side's median wall
// time and the process's own CPU (children excluded), and the median of
// each iteration's host/bare.
func BenchmarkStart(b *testing.B) {
	for _, n := range startSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			configs := demoServers(b, n)
			var hostMs, bareMs, hostCPU, bareCPU, ratios []float64
			i := 0
			for b.Loop() {
				runHost := func() {
					wall, cpu := startHostOnce(b, configs)
					hostMs, hostCPU = append(hostMs, wall), append(hostCPU, cpu)
				}
				runBare := func() {
					wall, cpu := startBareOnce(b, configs)
					bareMs, bareCPU = append(bareMs, wall), append(bareCPU, cpu)
				}
				if i%2 == 0 {
					runHost()
					runBare()
				} else {
					runBare()
					runHost()
				}
				ratios = append(ratios, hostMs[i]/bareMs[i])
				i++
			}
			b.ReportMetric(median(hostMs), "host-ms")
			b.ReportMetric(median(bareMs), "bare-ms")
			b.ReportMetric(median(ratios), "host/bare")
			if cpuMeasured {
				b.ReportMetric(median(hostCPU), "host-cpu-ms")
				b.ReportMetric(median(bareCPU), "bare-cpu-ms")
			}
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
	began, cpuBegan := time.Now(), cpuTime()
	if err := h.Start(context.Background(), configs); err != nil {
		b.Fatal(err)
	}
	wall, cpu = msSince(began), msOf(cpuTime()-cpuBegan)
	for _, st := range h.Status() {
		if st.State != host.StateConnected {
			b.Fatalf("%s: %+v", st.Name, st)
		}
	}
	return wall, cpu
}

// startBareOnce connects a go-sdk client session to every server at once,
// as a program that needs no host would, and returns what startHostOnce
// does.
func startBareOnce(b *testing.B, configs []config.ServerConfig) (wall, cpu float64) {
	began, cpuBegan := time.Now(), cpuTime()
	closeAll, err := connectBare(configs)
	wall, cpu = msSince(began), msOf(cpuTime()-cpuBegan)
	closeAll()
	if err != nil {
		b.Fatal(err)
	}
	return wall, cpu
}

// connectBare connects a session to each server, all at once, and
// returns a function that closes them all.
func connectBare(configs []config.ServerConfig) (closeAll func(), err error) {
	sessions := make([]*mcp.ClientSession, len(configs))
	errs := make([]error, len(configs))
	var wg sync.WaitGroup
	for i, cfg := range configs {
		wg.Go(func() {
			client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
			cmd := exec.Command(cfg.Command, cfg.Args...)
			cmd.Env = append(os.Environ(), demo.EnvServerMode+"=1")
			sessions[i], errs[i] = client.Connect(context.Background(),
				&mcp.CommandTransport{Command: cmd, TerminateDuration: bareTerminate},
				&mcp.ClientSessionOptions{ProtocolVersion: host.ProtocolVersion})
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
