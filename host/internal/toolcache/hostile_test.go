//go:build unix

package toolcache

import (
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// TestHostileEntry: an entry that is a FIFO or a link to /dev/zero is no
// entry, at once; an entry too big to read back is not written.
func TestHostileEntry(t *testing.T) {
	c := Open(t.TempDir())
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	fp := strings.Repeat("a", 64)
	if err := syscall.Mkfifo(c.path("fifo", fp), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", c.path("zero", fp)); err != nil {
		t.Fatal(err)
	}
	for _, server := range []string{"fifo", "zero"} {
		if e, ok := c.Load(server, fp); ok {
			t.Errorf("%s: Load = %d tools, want no entry", server, len(e.Tools))
		}
	}
	huge := []*mcp.Tool{{Name: "t", Description: strings.Repeat("d", safefile.MaxConfigSize)}}
	if err := c.Store("huge", fp, Entry{Tools: huge}); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("Store(huge) = %v, want an error", err)
	}
	if _, err := os.Stat(c.path("huge", fp)); err == nil {
		t.Error("the huge entry was written")
	}
}
