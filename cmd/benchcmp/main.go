// Command benchcmp runs host.BenchmarkCallTool and prints, per server, the
// host's median call time beside a bare go-sdk client's, with the ratio.
//
//	$ go run ./cmd/benchcmp
//	$ go run ./cmd/benchcmp -count 10 -benchtime 5000x
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

// pairs names, per server kind, the sub-benchmarks compared: bare go-sdk
// first, the host second.
var pairs = []struct{ kind, bare, host string }{
	{"demo", "bare-sdk", "host"},
	{"everything", "bare-sdk-everything", "host-everything"},
}

// The metrics compared, as the benchmark reports them.
const (
	unitNsOp = "ns/op"
	unitP50  = "p50-µs"
)

// benchLine matches "BenchmarkCallTool/host-2  3000  250302 ns/op  183.0 p50-µs";
// the -N suffix is GOMAXPROCS.
var benchLine = regexp.MustCompile(`^BenchmarkCallTool/(\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

func main() {
	count := flag.Int("count", 5, "runs of each benchmark; medians are taken across them")
	benchtime := flag.String("benchtime", "3000x", "go test -benchtime")
	timeout := flag.String("timeout", "10m", "go test -timeout: a hung server fails the run instead of stalling it")
	flag.Parse()
	if err := run(os.Stdout, os.Stderr, *count, *benchtime, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "benchcmp:", err)
		os.Exit(1)
	}
}

func run(stdout, stderr io.Writer, count int, benchtime, timeout string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "BenchmarkCallTool",
		"-benchtime", benchtime, "-count", strconv.Itoa(count), "-timeout", timeout, "./host/")
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
	fmt.Fprintln(tw, "server\tbare p50\thost p50\thost/bare\tbare ns/op\thost ns/op\thost/bare\t")
	shown := 0
	for _, p := range pairs {
		bareP50, ok1 := median(res[p.bare][unitP50])
		hostP50, ok2 := median(res[p.host][unitP50])
		bareNs, ok3 := median(res[p.bare][unitNsOp])
		hostNs, ok4 := median(res[p.host][unitNsOp])
		if !ok1 || !ok2 || !ok3 || !ok4 {
			// The everything pair skips when the npm peers are missing.
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t  (no results: skipped? run make peers)\n", p.kind)
			continue
		}
		shown++
		fmt.Fprintf(tw, "%s\t%.1f µs\t%.1f µs\t%.2f×\t%.0f\t%.0f\t%.2f×\t\n",
			p.kind, bareP50, hostP50, hostP50/bareP50, bareNs, hostNs, hostNs/bareNs)
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
