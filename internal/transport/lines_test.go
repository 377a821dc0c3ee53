package transport

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func TestJSONLineFilter(t *testing.T) {
	in := strings.Join([]string{
		`server starting on stdio`,
		``,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"level":30,"msg":"a JSON log line, not a message"}`,
		`42`,
		`  {"jsonrpc":"2.0","method":"notifications/progress"}  `,
		`{not json either`,
		`[{"jsonrpc":"2.0","id":2,"result":{}}]`,
		`{"jsonrpc":"2.0","id":3,"result":{"text":"no newline at the end"}}`,
	}, "\n")
	var skipped []string
	// One byte at a time: frames must come out whole however reads split.
	f := newJSONLineFilter(io.NopCloser(iotest.OneByteReader(strings.NewReader(in))), func(l string) { skipped = append(skipped, l) })
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{}}
{"jsonrpc":"2.0","method":"notifications/progress"}
[{"jsonrpc":"2.0","id":2,"result":{}}]
{"jsonrpc":"2.0","id":3,"result":{"text":"no newline at the end"}}
`
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("passed through (-want +got):\n%s", diff)
	}
	wantSkipped := []string{`server starting on stdio`, `{"level":30,"msg":"a JSON log line, not a message"}`, `42`, `{not json either`}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// A frame larger than the caller's buffer arrives whole over several reads.
func TestJSONLineFilterSmallBuffer(t *testing.T) {
	frame := `{"jsonrpc":"2.0","id":1,"result":{"blob":"` + strings.Repeat("x", 200_000) + `"}}`
	f := newJSONLineFilter(io.NopCloser(strings.NewReader(frame+"\n")), nil)
	var got strings.Builder
	buf := make([]byte, 7)
	for {
		n, err := f.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if got.String() != frame+"\n" {
		t.Errorf("got %d bytes, want %d", got.Len(), len(frame)+1)
	}
}

func TestReadLinesCutsLongLines(t *testing.T) {
	var lines []string
	readLines(strings.NewReader("short\n"+strings.Repeat("y", 100)+"\nlast"), 10, func(l string) { lines = append(lines, l) })
	if diff := cmp.Diff([]string{"short", strings.Repeat("y", 10), "last"}, lines); diff != "" {
		t.Error(diff)
	}
}
