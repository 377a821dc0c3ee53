package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/config/discover"
)

// blobServer serves one tool, blobs, whose result is the given contents,
// over streamable HTTP from this process.
func blobServer(t *testing.T, contents ...mcp.Content) config.ServerConfig {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "blobs", Version: "v0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "blobs", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: contents}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return config.ServerConfig{Name: "blobs", URL: ts.URL, Source: config.Source{Provider: "test", Path: "out_test.go", Level: config.LevelExplicit}}
}

// callOut runs call mcp__blobs__blobs --out dir and returns what it printed.
func callOut(t *testing.T, srv config.ServerConfig, dir string) string {
	t.Helper()
	ff := newFakeFactory(&discover.Discovery{Servers: []config.ServerConfig{srv}})
	if err := runCall(context.Background(), &callOptions{Factory: ff.Factory, Tool: "mcp__blobs__blobs", OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	return ff.out.String()
}

func files(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			names = append(names, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

// TestOutExtensions: a file gets an extension only from a short list of
// types a person opens to look at; anything else, and above all what a
// system would run, is .bin.
func TestOutExtensions(t *testing.T) {
	cases := []struct{ mime, ext string }{
		{"image/png", ".png"},
		{"IMAGE/JPEG", ".jpg"},
		{"image/gif", ".gif"},
		{"image/webp", ".webp"},
		{"audio/wav", ".wav"},
		{"audio/mpeg", ".mp3"},
		{"audio/ogg", ".ogg"},
		{"application/pdf", ".pdf"},
		{"text/plain; charset=utf-8", ".txt"},
		{"application/json", ".json"},
		{"application/octet-stream", ".bin"}, // .exe by mime.ExtensionsByType on Debian
		{"application/x-msdownload", ".bin"},
		{"application/x-sh", ".bin"},
		{"text/x-python", ".bin"},
		{"text/html", ".bin"},
		{"image/svg+xml", ".bin"},
		{"application/x-executable", ".bin"},
		{"", ".bin"},
		{"../../x", ".bin"},
		{"image/png/../../../evil", ".bin"},
	}
	var contents []mcp.Content
	var want []string
	for i, tc := range cases {
		contents = append(contents, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "x://" + tc.mime, MIMEType: tc.mime, Blob: []byte{byte(i)}}})
		want = append(want, fmt.Sprintf("resource-%d%s", i+1, tc.ext))
	}
	dir := t.TempDir()
	callOut(t, blobServer(t, contents...), dir)
	slices.Sort(want)
	if diff := cmp.Diff(want, files(t, dir)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// TestOutNeverOverwrites: a second call with the same --out takes the
// next free name; what was there stays as it was.
func TestOutNeverOverwrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	srv := blobServer(t,
		&mcp.ImageContent{MIMEType: "image/png", Data: []byte("png")},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "x://b", MIMEType: "application/octet-stream", Blob: []byte("MZ")}})
	first := callOut(t, srv, dir)
	if err := os.WriteFile(filepath.Join(dir, "image-1.png"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	second := callOut(t, srv, dir)
	third := callOut(t, srv, dir)
	if diff := cmp.Diff([]string{"image-1-1.png", "image-1-2.png", "image-1.png", "resource-2-1.bin", "resource-2-2.bin", "resource-2.bin"}, files(t, dir)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "image-1.png")); string(b) != "mine" {
		t.Errorf("image-1.png was overwritten: %q", b)
	}
	for _, want := range []string{
		"[image image/png, 3 bytes] written to " + filepath.Join(dir, "image-1-1.png") + "\n",
		"[resource application/octet-stream, 2 bytes] written to " + filepath.Join(dir, "resource-2-2.bin") + "\n",
	} {
		if !strings.Contains(first+second+third, want) {
			t.Errorf("output does not say %q:\n%s", want, first+second+third)
		}
	}
}

// TestOutStaysInDir: nothing a server sends (a URI, a media type, a name)
// becomes part of a file's name, so every file lands in the directory.
func TestOutStaysInDir(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "a", "out")
	srv := blobServer(t,
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///../../../escape.exe", MIMEType: "../../../escape", Blob: []byte("1")}},
		&mcp.ImageContent{MIMEType: "image/png/../../../../escape\x00", Data: []byte("2")},
		&mcp.AudioContent{MIMEType: "/etc/passwd", Data: []byte("3")})
	callOut(t, srv, dir)
	if diff := cmp.Diff([]string{"a/out/audio-3.bin", "a/out/image-2.bin", "a/out/resource-1.bin"}, files(t, base)); diff != "" {
		t.Errorf("files under the test's directory (-want +got):\n%s", diff)
	}
}

// TestWriteOutRefusesEscapes: writeOut opens files through an os.Root on
// the directory, so even a name of its own making could not leave it.
func TestWriteOutRefusesEscapes(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(base, filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../escape", filepath.Join(base, "escape"), "up/escape", "a\x00b"} {
		if path, err := writeOut(dir, name, ".bin", []byte("x")); err == nil {
			t.Errorf("writeOut(%q) wrote %s", name, path)
		}
	}
	if diff := cmp.Diff([]string{"out/up"}, files(t, base)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func TestNextTry(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{time.Time{}, ""},
		{now.Add(8 * time.Second), " (next try in 8s)"},
		{now.Add(1234 * time.Millisecond), " (next try in 1.2s)"},
		{now.Add(-time.Second), " (next try in 0s)"},
	} {
		if got := nextTry(c.at, now); got != c.want {
			t.Errorf("nextTry(%v) = %q, want %q", c.at, got, c.want)
		}
	}
}
