package host_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/host"
)

// envRSSProbe, set to "host N" or "bare N", makes the test binary start N
// demo servers that way, print its memory as rssLine, and exit: a process
// of its own, so the figure is that of the servers and nothing else.
const envRSSProbe = "SWITCHBOARD_BENCH_RSS"

// BenchmarkStartRSS reports the memory of a process that started 100 demo
// servers through the host, beside one that connected them with bare
// go-sdk sessions and listed their tools: resident set size once all are
// connected (after a GC), its high-water mark, and what is left resident
// once the runtime returned its free pages, in MiB, from /proc/self/status.
func BenchmarkStartRSS(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc/self/status")
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	const n = 100
	for _, who := range []string{"host", "bare"} {
		b.Run(who, func(b *testing.B) {
			var rss, hwm, held []float64
			for b.Loop() {
				cmd := exec.Command(exe, "-test.run=^$")
				cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d", envRSSProbe, who, n))
				cmd.Stderr = os.Stderr
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("%s probe: %v", who, err)
				}
				var r, h, k float64
				if _, err := fmt.Sscanf(string(bytes.TrimSpace(out)), "rss %g hwm %g held %g", &r, &h, &k); err != nil {
					b.Fatalf("%s probe said %q", who, out)
				}
				rss, hwm, held = append(rss, r), append(hwm, h), append(held, k)
			}
			b.ReportMetric(median(rss), "rss-MiB")
			b.ReportMetric(median(hwm), "hwm-MiB")
			b.ReportMetric(median(held), "held-MiB")
		})
	}
}

// rssProbe runs the probe envRSSProbe asks for, if it does, and returns
// the exit code.
func rssProbe() (int, bool) {
	spec, ok := os.LookupEnv(envRSSProbe)
	if !ok || os.Getenv("SWITCHBOARD_DEMO_SERVER") == "1" {
		return 0, false
	}
	os.Unsetenv(envRSSProbe)
	who, count, _ := strings.Cut(spec, " ")
	n, err := strconv.Atoi(count)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bad", envRSSProbe, spec)
		return 2, true
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1, true
	}
	configs := demoConfigs(exe, n)
	switch who {
	case "host":
		h := host.New(nil)
		defer h.Close()
		if err := h.Start(context.Background(), configs); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		if err := h.WaitSettled(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		for _, st := range h.Status() {
			if st.State != host.StateConnected {
				fmt.Fprintln(os.Stderr, st.Name, st.State, st.Error)
				return 1, true
			}
		}
		printMemory()
	case "bare":
		closeAll, err := connectBare(configs, true)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		printMemory()
		closeAll()
	default:
		fmt.Fprintln(os.Stderr, "bad", envRSSProbe, spec)
		return 2, true
	}
	return 0, true
}

// printMemory prints rssLine: VmRSS after a GC, VmHWM, and VmRSS once the
// runtime has given back every free page (what the process holds, without
// the headroom the GC keeps), in MiB.
func printMemory() {
	runtime.GC()
	rss, hwm := readMemory()
	debug.FreeOSMemory()
	held, _ := readMemory()
	fmt.Printf("rss %.1f hwm %.1f held %.1f\n", rss, hwm, held)
}

func readMemory() (rss, hwm float64) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for line := range strings.Lines(string(data)) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		switch k {
		case "VmRSS":
			rss = n / 1024
		case "VmHWM":
			hwm = n / 1024
		}
	}
	return rss, hwm
}
