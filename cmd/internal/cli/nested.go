package cli

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/host"
)

// refuseNested refuses to serve when a switchboard started this process as
// one of its servers (host.EnvStartedBy): a client config that lists
// switchboard itself, discovered by a switchboard, would otherwise start
// one switchboard inside another without end (issue 22, item 10).
func refuseNested(ios IO) error {
	pid, ok := ios.LookupEnv(host.EnvStartedBy)
	if !ok || pid == "" {
		return nil
	}
	return fmt.Errorf("serve failed: switchboard was started by switchboard (pid %s) as one of its own servers, and does not run inside itself; remove the entry that starts 'switchboard serve' from the config that lists it (see 'switchboard sources')", oneLine(pid))
}
