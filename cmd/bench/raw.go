package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/procgroup"
	"github.com/switchboard-mcp/switchboard/internal/testkit/benchpeer"
)

// The raw contender is the floor on the client's side: pre-encoded request
// lines out, answers read back and looked at only for their id and a
// result, with no MCP library. Against the floor server it is the round
// trip of the pipe or the HTTP exchange itself; against another server it
// is that plus the server's own time, the least any client can take there.

// rawInit and rawInitialized are the handshake, pre-encoded.
var (
	rawInit = []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + host.ProtocolVersion +
		`","capabilities":{},"clientInfo":{"name":"bench-raw","version":"0"}}}`)
	rawInitialized = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
)

// rawCall pre-encodes a tools/call request around its id: head + id + tail.
type rawCall struct{ head, tail []byte }

func newRawCall(t *target) (rawCall, error) {
	params, err := json.Marshal(map[string]any{"name": t.Tool, "arguments": t.Arguments})
	if err != nil {
		return rawCall{}, err
	}
	return rawCall{
		head: []byte(`{"jsonrpc":"2.0","id":`),
		tail: append(append([]byte(`,"method":"tools/call","params":`), params...), '}'),
	}, nil
}

func (r rawCall) append(dst []byte, id int64) []byte {
	dst = append(dst, r.head...)
	dst = strconv.AppendInt(dst, id, 10)
	return append(dst, r.tail...)
}

// answer looks at one incoming message: its numeric id, or -1 for a message
// that is not an answer (a notification, a request of the server's); an
// error answer is an error.
func answer(msg []byte) (int64, error) {
	var id, method, result, rpcErr []byte
	if err := benchpeer.Members(msg, func(k, v []byte) {
		switch string(k) {
		case "id":
			id = v
		case "method":
			method = v
		case "result":
			result = v
		case "error":
			rpcErr = v
		}
	}); err != nil {
		return 0, fmt.Errorf("answer %.200q: %w", msg, err)
	}
	if method != nil || id == nil {
		return -1, nil
	}
	if rpcErr != nil {
		return 0, fmt.Errorf("error answer: %s", rpcErr)
	}
	if result == nil || bytes.Contains(result, []byte(`"isError":true`)) {
		return 0, fmt.Errorf("%w: %.200q", errNoResult, msg)
	}
	// The harness's own ids are small numbers; parsed by hand, as
	// strconv would copy the bytes into a string first.
	var n int64
	for _, d := range id {
		if d < '0' || d > '9' || n > 1<<50 {
			return 0, fmt.Errorf("answer id %s: not one of ours", id)
		}
		n = n*10 + int64(d-'0')
	}
	return n, nil
}

func dialRaw(ctx context.Context, t *target) (caller, error) {
	call, err := newRawCall(t)
	if err != nil {
		return nil, err
	}
	if t.Transport == "http" {
		return dialRawHTTP(ctx, t, call)
	}
	return dialRawStdio(t, call)
}

// rawStdio talks to a server over its stdin and stdout.
type rawStdio struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	call   rawCall
	nextID int64
	buf    []byte
	sent   []time.Time
}

func dialRawStdio(t *target, call rawCall) (caller, error) {
	cmd := t.command()
	procgroup.Set(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.WaitDelay = exitWait
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &rawStdio{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10), call: call, nextID: 1}
	if err := c.handshake(); err != nil {
		c.close()
		return nil, fmt.Errorf("raw: %w", err)
	}
	return c, nil
}

func (c *rawStdio) handshake() error {
	if _, err := c.in.Write(append(append([]byte(nil), rawInit...), '\n')); err != nil {
		return err
	}
	if _, err := c.read(); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	_, err := c.in.Write(append(append([]byte(nil), rawInitialized...), '\n'))
	return err
}

// read returns the id of the next answer, skipping other messages.
func (c *rawStdio) read() (int64, error) {
	for {
		line, err := c.out.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return 0, fmt.Errorf("an answer longer than %d bytes", c.out.Size())
		}
		if err != nil {
			return 0, err
		}
		id, err := answer(bytes.TrimSpace(line))
		if err != nil || id >= 0 {
			return id, err
		}
	}
}

// calls keeps callers requests in flight from one goroutine: it writes that
// many, then one more for every answer, so there is no hand-off between
// goroutines to measure, only the pipe and the server.
func (c *rawStdio) calls(_ context.Context, lat []time.Duration, callers int) error {
	n := len(lat)
	base := c.nextID
	c.nextID += int64(n)
	if cap(c.sent) < n {
		c.sent = make([]time.Time, n)
	}
	sent := c.sent[:n]
	written := 0
	write := func() error {
		c.buf = c.call.append(c.buf[:0], base+int64(written))
		c.buf = append(c.buf, '\n')
		sent[written] = time.Now()
		written++
		_, err := c.in.Write(c.buf)
		return err
	}
	for written < min(callers, n) {
		if err := write(); err != nil {
			return err
		}
	}
	for range n {
		id, err := c.read()
		if err != nil {
			return err
		}
		i := id - base
		if i < 0 || i >= int64(n) {
			return fmt.Errorf("answer to id %d, which this round did not send", id)
		}
		lat[i] = time.Since(sent[i])
		if written < n {
			if err := write(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *rawStdio) close() error {
	c.in.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(bareTerminate):
		_ = procgroup.Terminate(c.cmd.Process.Pid)
		select {
		case <-done:
		case <-time.After(stopWait):
			_ = procgroup.Kill(c.cmd.Process.Pid)
			<-done
		}
	}
	return nil
}

// rawHTTP posts pre-encoded requests with net/http and reads the answers
// (JSON or an event stream) without decoding them beyond id and result.
type rawHTTP struct {
	url, session string
	client       *http.Client
	call         rawCall
	nextID       atomic.Int64
}

func dialRawHTTP(ctx context.Context, t *target, call rawCall) (caller, error) {
	c := &rawHTTP{url: t.URL, client: pooledClient(), call: call}
	c.nextID.Store(1)
	resp, body, err := c.post(ctx, rawInit, nil)
	if err != nil {
		return nil, fmt.Errorf("raw: initialize: %w", err)
	}
	if _, err := answerIn(body); err != nil {
		return nil, fmt.Errorf("raw: initialize: %w", err)
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	if _, _, err := c.post(ctx, rawInitialized, nil); err != nil {
		return nil, fmt.Errorf("raw: initialized: %w", err)
	}
	return c, nil
}

// post sends one message and returns the whole answer body, in buf.
func (c *rawHTTP) post(ctx context.Context, msg, buf []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(msg))
	if err != nil {
		return nil, nil, err
	}
	req.Header["Content-Type"] = []string{"application/json"}
	req.Header["Accept"] = []string{"application/json, text/event-stream"}
	req.Header["Mcp-Protocol-Version"] = []string{host.ProtocolVersion}
	if c.session != "" {
		req.Header["Mcp-Session-Id"] = []string{c.session}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b := bytes.NewBuffer(buf[:0])
	_, err = b.ReadFrom(resp.Body)
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("%s: %.200q", resp.Status, b.Bytes())
	}
	return resp, b.Bytes(), err
}

// answerIn finds the answer in a body: the body itself, or the data line
// of an event stream that carries it.
func answerIn(body []byte) (int64, error) {
	rest := bytes.TrimSpace(body)
	if len(rest) > 0 && rest[0] == '{' {
		return answer(rest)
	}
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		// An event with no data primes a stream for resumption (2025-11-25).
		if data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok && len(bytes.TrimSpace(data)) > 0 {
			if id, err := answer(bytes.TrimSpace(data)); err != nil || id >= 0 {
				return id, err
			}
		}
	}
	return 0, fmt.Errorf("%w: %.200q", errNoResult, body)
}

func (c *rawHTTP) calls(ctx context.Context, lat []time.Duration, callers int) error {
	type bufs struct{ req, body []byte }
	pool := make(chan *bufs, callers)
	for range callers {
		pool <- &bufs{}
	}
	return concurrently(lat, callers, func() error {
		b := <-pool
		defer func() { pool <- b }()
		id := c.nextID.Add(1)
		b.req = c.call.append(b.req[:0], id)
		_, body, err := c.post(ctx, b.req, b.body)
		b.body = body
		if err != nil {
			return err
		}
		got, err := answerIn(body)
		if err == nil && got != id {
			err = fmt.Errorf("answer to id %d, want %d", got, id)
		}
		return err
	})
}

func (c *rawHTTP) close() error {
	req, err := http.NewRequest(http.MethodDelete, c.url, nil)
	if err == nil && c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		if resp, err := c.client.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	c.client.CloseIdleConnections()
	return nil
}
