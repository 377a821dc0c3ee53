package host_test

import (
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/host"
)

// A result over the cap is cut with a note of how much and where the
// whole is; an image is a line, never base64.
func TestRenderResult(t *testing.T) {
	big := strings.Repeat("x", 10000)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}, &mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 5000)}}}
	if got := host.RenderResult(res, host.ResultOptions{}); !strings.HasPrefix(got, big) || !strings.HasSuffix(got, "[image image/png, 5000 bytes]") {
		t.Errorf("uncapped: %d bytes", len(got))
	}
	dir := t.TempDir()
	got := host.RenderResult(res, host.ResultOptions{MaxText: 1000, Keep: host.KeepInDir(dir)})
	cut, note, _ := strings.Cut(got, "\n[switchboard: ")
	if len(cut) > 1000 || !strings.Contains(note, "cut at 1000") {
		t.Fatalf("capped: %d bytes, note %q", len(cut), note)
	}
	i := strings.Index(note, dir)
	if i < 0 {
		t.Fatalf("the note does not say where the whole is: %q", note)
	}
	path := strings.TrimSuffix(note[i:], "]")
	whole, err := os.ReadFile(path)
	if err != nil || string(whole) != host.ResultText(res) {
		t.Errorf("kept file: %d bytes, %v", len(whole), err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("kept file mode %o", fi.Mode().Perm())
	}
}

// A cap below the ellipsis's own width cuts without one, and never
// panics: --max-result 1 is a user's number like any other.
func TestRenderResultTinyCap(t *testing.T) {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello, world"}}}
	for max := 1; max <= 4; max++ {
		out := host.RenderResult(res, host.ResultOptions{MaxText: max})
		if !strings.Contains(out, "cut at") {
			t.Errorf("MaxText %d: %q; want the note of the cut", max, out)
		}
	}
}
