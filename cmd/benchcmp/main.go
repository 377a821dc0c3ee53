// Command benchcmp runs host.BenchmarkCallTool and prints, per server, the
// host's median call time beside a bare go-sdk client's, with the ratio.
//
//	$ go run ./cmd/benchcmp
//	$ go run ./cmd/benchcmp -count 10 -benchtime 5000x
//	$ go run ./cmd/benchcmp -only 'floor|floor-http'
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// pairs names, per server and number of callers, the sub-benchmarks
// compared: bare go-sdk first, the host second, and the bare client with
// the host's timeout and progress token (same).
var pairs = func() []struct{ kind, bare, host, same string } {
	var ps []struct{ kind, bare, host, same string }
	for _, server := range []string{"floor", "demo", "everything", "floor-http", "demo-http"} {
		for _, callers := range []string{"", "-x16"} {
			ps = append(ps, struct{ kind, bare, host, same string }{
				server + callers, server + "/bare" + callers, server + "/host" + callers, server + "/same" + callers})
		}
	}
	return ps
}()

// The metrics compared, as the benchmark reports them.
const (
	unitNsOp   = "ns/op"
	unitP50    = "p50-µs"
	unitCPU    = "cpu-µs/op"
	unitAllocs = "allocs/op"
	unitBytes  = "B/op"
)

// benchLine matches "BenchmarkCallTool/floor/host#02-2  3000  250302 ns/op  183.0 p50-µs";
// #NN numbers the rounds, the -N suffix is GOMAXPROCS.
var benchLine = regexp.MustCompile(`^BenchmarkCallTool/(\S+?)(?:#\d+)?(?:-\d+)?\s+\d+\s+(.*)$`)

func main() {
	count := flag.Int("count", 5, "rounds, each of which runs every benchmark once; medians are taken across them")
	benchtime := flag.String("benchtime", "3000x", "go test -benchtime")
	only := flag.String("only", "", "servers to run, a -bench pattern for BenchmarkCallTool's sub-benchmarks: floor|demo-http")
	timeout := flag.String("timeout", "10m", "go test -timeout: a hung server fails the run instead of stalling it")
	flag.Parse()
	if err := run(os.Stdout, os.Stderr, *count, *benchtime, *only, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "benchcmp:", err)
		os.Exit(1)
	}
}

func run(stdout, stderr io.Writer, count int, benchtime, only, timeout string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	// Rounds, not -count: -count repeats each benchmark in a block, so a
	// machine that got busier halfway would favour one side.
	pattern := "BenchmarkCallTool"
	if only != "" {
		pattern += "/^(" + only + ")$"
	}
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", pattern,
		"-benchtime", benchtime, "-timeout", timeout, "./host/")
	cmd.Env = append(os.Environ(), "SWITCHBOARD_BENCH_ROUNDS="+strconv.Itoa(count))
	cmd.Dir = root
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "$ %s\n", strings.Join(cmd.Args, " "))
	if err := cmd.Start(); err != nil {
		return err
	}
	// The raw output goes to stderr as it comes, so a long run shows
	// progress and a failure shows why; the comparison goes to stdout.
	results, scanErr := parse(io.TeeReader(out, stderr))
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("go test: %w", err)
	}
	if scanErr != nil {
		return scanErr
	}
	return report(stdout, results)
}

// results holds every sample: results[sub-benchmark][unit].
type results map[string]map[string][]float64

func parse(r io.Reader) (results, error) {
	res := results{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		name, fields := m[1], strings.Fields(m[2])
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %q: %w", sc.Text(), err)
			}
			if res[name] == nil {
				res[name] = map[string][]float64{}
			}
			res[name][fields[i+1]] = append(res[name][fields[i+1]], v)
		}
	}
	return res, sc.Err()
}

func report(w io.Writer, res results) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\tbare p50\thost p50\thost/bare\tbare ns/op\thost ns/op\thost/bare\thost/same p50\tbare cpu\thost cpu\tbare allocs\thost allocs\tbare B/op\thost B/op\t")
	shown := 0
	for _, p := range pairs {
		bareP50, ok1 := median(res[p.bare][unitP50])
		hostP50, ok2 := median(res[p.host][unitP50])
		bareNs, ok3 := median(res[p.bare][unitNsOp])
		hostNs, ok4 := median(res[p.host][unitNsOp])
		if !ok1 || !ok2 || !ok3 || !ok4 {
			// The everything pairs skip when the npm peers are missing.
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t  (no results: not run, or skipped without make peers)\n", p.kind)
			continue
		}
		shown++
		m := func(name, unit string) float64 { v, _ := median(res[name][unit]); return v }
		same := "-"
		if sameP50, ok := median(res[p.same][unitP50]); ok {
			same = fmt.Sprintf("%.2f×", hostP50/sameP50)
		}
		fmt.Fprintf(tw, "%s\t%.1f µs\t%.1f µs\t%.2f×\t%.0f\t%.0f\t%.2f×\t%s\t%.0f µs\t%.0f µs\t%.0f\t%.0f\t%.0f\t%.0f\t\n",
			p.kind, bareP50, hostP50, hostP50/bareP50, bareNs, hostNs, hostNs/bareNs, same,
			m(p.bare, unitCPU), m(p.host, unitCPU), m(p.bare, unitAllocs), m(p.host, unitAllocs), m(p.bare, unitBytes), m(p.host, unitBytes))
	}
	if raw, ok := median(res["floor/raw"][unitP50]); ok {
		fmt.Fprintf(tw, "floor/raw\t%.1f µs\t\t\t\t\t\t\t\t\t\t\t\t\t\n", raw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if shown == 0 {
		return fmt.Errorf("no benchmark pair produced results")
	}
	return nil
}

func median(xs []float64) (float64, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	s := slices.Sorted(slices.Values(xs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2, true
	}
	return s[len(s)/2], true
}

// moduleRoot is the folder of the main module's go.mod, so the command
// works from any folder inside the repository.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside a Go module")
	}
	return filepath.Dir(gomod), nil
}
