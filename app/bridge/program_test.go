package bridge_test

import (
	"context"
	"fmt"
	"os"

	"github.com/switchboard-mcp/switchboard/app/bridge"
)

// envBridgeSocket makes this test binary a bridge program: stdin and
// stdout bridged to the daemon at that socket, as serve will be, for a
// client that launches a server (the TypeScript SDK's).
const envBridgeSocket = "SWITCHBOARD_TEST_BRIDGE_SOCKET"

func runBridgeProgram(path string) int {
	err := bridge.Run(context.Background(), os.Stdin, os.Stdout, bridge.Options{
		Dial: dialUnix(path),
		Logf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, "switchboard: "+format+"\n", args...) },
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		return 1
	}
	return 0
}
