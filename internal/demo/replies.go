package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FloodLogger is the logger name of the notifications --log-flood sends.
const FloodLogger = "flood"

// floodLogs writes n notifications/message lines to w, as a server that
// logs a burst at start does (--log-flood). They go out before the server
// reads anything, so a client reads all of them before the initialize
// response.
func floodLogs(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64*1024)
	for i := range n {
		fmt.Fprintf(bw, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":%q,"data":"flood line %d of %d"}}`+"\n", FloodLogger, i+1, n)
	}
	return bw.Flush()
}

type sizeIn struct {
	Bytes int `json:"bytes" jsonschema:"how many bytes of text to send"`
}

type depthIn struct {
	Depth int `json:"depth" jsonschema:"how many arrays deep the structured content nests"`
}

// DeepReplyTool is the --reply-tools tool whose result nests as deep as it
// is asked to. go-sdk (through encoding/json) cannot encode more than 10000
// levels, so the demo writes that reply itself, below go-sdk (newRawReplies).
const DeepReplyTool = "deep_reply"

// addReplyTools adds what --reply-tools serves: replies and notifications
// as large or as deep as the caller asks, for testing a host's limits.
func addReplyTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "big_reply",
		Description: "Returns a text result of the given number of bytes (the letter x repeated).",
	}, func(_ context.Context, _ *mcp.CallToolRequest, in sizeIn) (*mcp.CallToolResult, any, error) {
		if in.Bytes < 0 {
			return nil, nil, fmt.Errorf("bytes must not be negative (got %d)", in.Bytes)
		}
		return text(strings.Repeat("x", in.Bytes)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "big_log",
		Description: "Sends a notifications/message log entry of the given number of bytes, then answers \"logged\".",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in sizeIn) (*mcp.CallToolResult, any, error) {
		if in.Bytes < 0 {
			return nil, nil, fmt.Errorf("bytes must not be negative (got %d)", in.Bytes)
		}
		err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "demo", Data: strings.Repeat("x", in.Bytes)})
		if err != nil {
			return nil, nil, err
		}
		return text("logged"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name: DeepReplyTool,
		Description: "Returns structured content {\"v\": [[[…]]]} nested the given number of arrays deep " +
			"(the demo server writes this reply itself; go-sdk cannot encode it).",
	}, func(context.Context, *mcp.CallToolRequest, depthIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New(DeepReplyTool + " is answered by the demo's own reader; it was not installed")
	})
}

// deepReply is the response to a deep_reply call: a result whose
// structured content nests depth arrays inside {"v": …}, so the whole
// message nests depth+3 levels (message, result, structured content).
func deepReply(id json.RawMessage, depth int) []byte {
	var b bytes.Buffer
	b.Grow(64 + 2*depth)
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%d deep"}],"structuredContent":{"v":`, id, depth)
	b.WriteString(strings.Repeat("[", depth))
	b.WriteString(strings.Repeat("]", depth))
	b.WriteString("}}}\n")
	return b.Bytes()
}

// lockedWriter serializes writes, so that a reply the demo writes itself
// never lands inside one go-sdk is writing (go-sdk writes each message in
// one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// lineFilter reads its input line by line and passes on to go-sdk every
// line that take does not take: the demo's way to handle a message below
// go-sdk, which answers (or refuses) everything it reads.
type lineFilter struct {
	br      *bufio.Reader
	rc      io.Closer
	take    func(line []byte) bool
	pending []byte
}

func newLineFilter(in io.ReadCloser, take func(line []byte) bool) *lineFilter {
	return &lineFilter{br: bufio.NewReaderSize(in, 64*1024), rc: in, take: take}
}

func (r *lineFilter) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		line, err := r.br.ReadBytes('\n')
		if len(line) > 0 && !r.take(line) {
			r.pending = line
		}
		if err != nil && len(r.pending) == 0 {
			return 0, err
		}
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

func (r *lineFilter) Close() error { return r.rc.Close() }

// newRawReplies answers deep_reply calls itself on out and passes every
// other line on to go-sdk.
func newRawReplies(in io.ReadCloser, out io.Writer) *lineFilter {
	return newLineFilter(in, func(line []byte) bool { return answerDeepReply(out, line) })
}

// answerDeepReply writes the reply to a deep_reply call and reports whether line was one.
func answerDeepReply(out io.Writer, line []byte) bool {
	if !bytes.Contains(line, []byte(DeepReplyTool)) {
		return false
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string  `json:"name"`
			Arguments depthIn `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &req) != nil || req.Method != "tools/call" || req.Params.Name != DeepReplyTool || len(req.ID) == 0 {
		return false
	}
	depth := max(req.Params.Arguments.Depth, 0)
	_, _ = out.Write(deepReply(req.ID, depth))
	return true
}
