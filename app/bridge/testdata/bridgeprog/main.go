// Command bridgeprog is a bridge and nothing else: stdin and stdout
// bridged to the daemon socket named by its one argument. The benchmarks
// measure its resident memory, the bridge's own, without the rest of the
// switchboard binary.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/switchboard-mcp/switchboard/app/bridge"
)

func main() {
	path := os.Args[1]
	err := bridge.Run(context.Background(), os.Stdin, os.Stdout, bridge.Options{
		Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
		Logf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, "switchboard: "+format+"\n", args...) },
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		os.Exit(1)
	}
}
