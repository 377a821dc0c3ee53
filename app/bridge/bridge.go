// Package bridge is what `switchboard serve` over stdio is when a daemon
// runs: it copies a client's MCP messages to a stream of the daemon's and
// back, and when the daemon goes away it answers what was in flight and
// reconnects behind the client's back (DESIGN.md F57).
package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Options say how a bridge reaches the daemon and whom it tells.
type Options struct {
	// Dial opens a new stream to the daemon (a fresh downstream session
	// each time): newline-delimited JSON-RPC, as over stdio. Required.
	Dial func(ctx context.Context) (io.ReadWriteCloser, error)
	// Logf gets one line per thing a person should know (the daemon lost,
	// back again, a message dropped); nil discards them.
	Logf func(format string, args ...any)
}

// Redialling waits firstBackoff after losing the daemon, doubling up to
// maxBackoff: a daemon restarting is back in well under a second, one
// that is gone should not be asked in a tight loop.
const (
	firstBackoff = 20 * time.Millisecond
	maxBackoff   = 2 * time.Second
)

// Errors a client is answered with while the daemon is away. Their code is
// JSON-RPC's internal error: the request was valid, its answer was lost.
var (
	errLost = &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: "switchboard: lost the connection to the daemon before the answer came; reconnecting"}
	errDown = &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: "switchboard: the daemon is not reachable; reconnecting"}
)

// Run bridges the client on in and out to the daemon until in ends (nil:
// the client left; the daemon's stream is closed, its servers keep
// running) or ctx does (ctx's error). The first Dial failing is its
// error, wrapped, so that the caller can start the daemon and run again;
// later losses are redialled with backoff while the client stays.
//
// When ctx ends first, the goroutine reading in stays blocked in its Read
// until in delivers or is closed (stdin at exit); it writes nothing more.
func Run(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.Dial == nil {
		return errors.New("bridge: no Options.Dial")
	}
	conn, err := opts.Dial(ctx)
	if err != nil {
		return fmt.Errorf("connecting to the daemon: %w", err)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	b := newBridge(out, opts)
	b.st.conn, b.st.live = conn, conn
	var wg sync.WaitGroup
	wg.Go(func() { b.daemonLoop(ctx, conn) })
	read := make(chan error, 1)
	go func() { read <- b.readClient(in) }()
	select {
	case err = <-read:
	case <-ctx.Done():
		err = ctx.Err()
	}
	b.end()
	stop()
	wg.Wait()
	return err
}

// bridge is one client's: its writer, and the state recovery needs.
type bridge struct {
	logf func(format string, args ...any)
	dial func(ctx context.Context) (io.ReadWriteCloser, error)

	outMu  sync.Mutex // one message at a time on out
	out    io.Writer
	outEnd bool // Run returned: nothing more is written

	wmu sync.Mutex // one message at a time to the daemon

	mu sync.Mutex // guards st
	st state
}

func newBridge(out io.Writer, opts Options) *bridge {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &bridge{logf: logf, dial: opts.Dial, out: out, st: newState()}
}

// end stops the bridge: the daemon's stream is closed (its session ends
// there, nothing upstream), and nothing more goes to the client.
func (b *bridge) end() {
	b.mu.Lock()
	b.st.closing = true
	live := b.st.live
	b.mu.Unlock()
	if live != nil {
		live.Close()
	}
	b.outMu.Lock()
	b.outEnd = true
	b.outMu.Unlock()
}

func (b *bridge) ending() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.st.closing
}

// toClient writes one line (its newline included) to the client.
func (b *bridge) toClient(line []byte) {
	b.outMu.Lock()
	defer b.outMu.Unlock()
	if b.outEnd {
		return
	}
	// A client that stopped reading is the client's end: its stdin
	// ending ends Run.
	_, _ = b.out.Write(line)
}

// send encodes msg for the client.
func (b *bridge) send(msg jsonrpc.Message) {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		b.logf("encoding a message for the client: %v", err)
		return
	}
	b.toClient(append(data, '\n'))
}

// toDaemon writes one line to conn. A failed write is the daemon lost,
// which the loop reading conn sees too.
func (b *bridge) toDaemon(conn io.Writer, line []byte) {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	_, _ = conn.Write(line)
}

// sendDaemon encodes msg for the daemon.
func (b *bridge) sendDaemon(conn io.Writer, msg jsonrpc.Message) {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		b.logf("encoding a message for the daemon: %v", err)
		return
	}
	b.toDaemon(conn, append(data, '\n'))
}

// readClient copies the client's messages to the daemon until in ends.
func (b *bridge) readClient(in io.Reader) error {
	r := newLineReader(in)
	for {
		line, err := r.next()
		if errors.Is(err, errLineTooLong) {
			b.logf("dropped a message from the client: over %d MiB", maxLine>>20)
			continue
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the client: %w", err)
		}
		if b.ending() {
			return nil
		}
		b.fromClient(line)
	}
}

// fromClient handles one line of the client's: it goes to the daemon as
// it came, but for the ids of the daemon's own requests, which the
// bridge numbered (state.ask), and what recovery needs is noted on the
// way.
func (b *bridge) fromClient(line []byte) {
	msg, err := read(trimLine(line), clientWhole)
	if err != nil {
		// Not a message the bridge can read: the gateway answers it.
		b.mu.Lock()
		conn := b.st.conn
		b.mu.Unlock()
		if conn != nil {
			b.toDaemon(conn, line)
		}
		return
	}
	b.mu.Lock()
	conn, act := b.st.fromClient(msg)
	b.mu.Unlock()
	switch {
	case act.reply != nil:
		b.send(act.reply)
	case act.rewrite != nil && conn != nil:
		b.sendDaemon(conn, act.rewrite)
	case act.forward && conn != nil:
		b.toDaemon(conn, line)
	}
}

// daemonLoop copies the daemon's messages to the client, stream after
// stream, until the bridge ends.
func (b *bridge) daemonLoop(ctx context.Context, conn io.ReadWriteCloser) {
	for {
		err := b.readDaemon(conn)
		conn.Close()
		if b.ending() {
			return
		}
		b.lost(err)
		if conn = b.redial(ctx); conn == nil {
			return
		}
	}
}

// readDaemon copies conn's messages to the client until conn fails.
func (b *bridge) readDaemon(conn io.ReadWriteCloser) error {
	r := newLineReader(conn)
	for {
		line, err := r.next()
		if errors.Is(err, errLineTooLong) {
			b.logf("dropped a message from the daemon: over %d MiB", maxLine>>20)
			continue
		}
		if err != nil {
			return err
		}
		msg, err := read(trimLine(line), daemonWhole)
		if err != nil {
			b.logf("dropped a message from the daemon that is not JSON-RPC: %v", err)
			continue
		}
		if text := news(msg); text != "" {
			first, _, _ := strings.Cut(text, "\n") // the stderr lines that follow are the client's to read
			b.logf("%s", first)
		}
		b.mu.Lock()
		act := b.st.fromDaemon(msg)
		b.mu.Unlock()
		if act.failed != nil {
			return act.failed
		}
		for _, m := range act.toDaemon {
			b.sendDaemon(conn, m)
		}
		if act.online {
			b.mu.Lock()
			b.st.goOnline()
			b.mu.Unlock()
			b.logf("reconnected to the daemon")
		}
		switch {
		case act.rewrite != nil:
			b.send(act.rewrite)
		case act.forward:
			b.toClient(line)
		}
		for _, m := range act.toClient {
			b.send(m)
		}
	}
}

// lost answers the client's requests in flight, and says once an outage
// that the daemon is gone: on stderr, and to the client as a log message
// if its level lets warnings through. A daemon refusing the replayed
// initialize is said once too.
func (b *bridge) lost(err error) {
	b.mu.Lock()
	replies, announce, note := b.st.lost()
	refusal := errors.Is(err, errRefused) && !b.st.refusalSaid
	if refusal {
		b.st.refusalSaid = true
	}
	b.mu.Unlock()
	for _, r := range replies {
		b.send(r)
	}
	why := "the stream ended"
	if err != nil && !errors.Is(err, io.EOF) {
		why = err.Error()
	}
	if refusal {
		b.logf("%s; retrying", why)
	}
	if !announce {
		return
	}
	b.logf("lost the daemon (%s); reconnecting", why)
	if note {
		b.send(logMessage("warning", "switchboard lost its daemon ("+why+"); reconnecting: requests in flight failed"))
	}
}

// redial dials the daemon until it answers, waiting longer each time, and
// starts the client's session again on the stream it got (state.replay).
// Nil when the bridge ends first.
func (b *bridge) redial(ctx context.Context) io.ReadWriteCloser {
	wait := firstBackoff
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		wait = min(2*wait, maxBackoff)
		conn, err := b.dial(ctx)
		if err != nil {
			continue
		}
		b.mu.Lock()
		if b.st.closing {
			b.mu.Unlock()
			conn.Close()
			return nil
		}
		first := b.st.replay(conn)
		b.mu.Unlock()
		if first != nil {
			b.sendDaemon(conn, first) // readDaemon goes on when it is answered
		} else {
			b.logf("reconnected to the daemon")
		}
		return conn
	}
}
