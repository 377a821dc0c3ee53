package gateway_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
)

// pipeSession serves filter's view over ServePipe (as a daemon serves an
// attached client) and connects a client to it. end closes the client and
// returns what ServePipe returned, once it has.
func pipeSession(t *testing.T, gw *gateway.Gateway, filter host.ViewFilter) (sess *mcp.ClientSession, end func() error) {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		err := gw.ServePipe(ctx, filter, toServer, fromServer)
		fromServer.Close()
		served <- err
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "piped", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		cancel()
		fromClient.Close()
		t.Fatalf("%v (served: %v)", err, <-served)
	}
	return sess, func() error {
		sess.Close()
		fromClient.Close()
		err := <-served
		cancel()
		return err
	}
}

// The views ServePipe sessions make are let go once their last session
// ended, and count against the views a gateway keeps. Before, each was
// pinned: 3000 attaches with distinct filters kept 87 MB for ever, every
// view of them synced on each change.
func TestPipeViewsLetGo(t *testing.T) {
	defer gateway.SetMaxViews(2)()
	s := serve(t, gateway.HTTPOptions{}, demoServer(t, "a"))
	before := s.gw.Stats().Views
	only := func(i int) host.ViewFilter {
		return host.ViewFilter{Servers: []string{"a", fmt.Sprintf("none%d", i)}}
	}
	ctx := context.Background()
	for i := range 10 {
		sess, end := pipeSession(t, s.gw, only(i))
		if names := toolNames(t, sess); len(names) == 0 {
			t.Errorf("session %d sees no tools", i)
		}
		if v := s.gw.Stats().Views; v != before+1 {
			t.Errorf("with session %d on: %d views, want %d", i, v, before+1)
		}
		if err := end(); err != nil {
			t.Errorf("session %d: %v", i, err)
		}
		if v := s.gw.Stats().Views; v != before {
			t.Errorf("after session %d ended: %d views, want %d", i, v, before)
		}
	}
	// Two sessions on one view: it stays until the second ends.
	one, endOne := pipeSession(t, s.gw, only(0))
	_, endTwo := pipeSession(t, s.gw, only(0))
	if err := endTwo(); err != nil {
		t.Fatal(err)
	}
	if _, err := one.ListTools(ctx, nil); err != nil {
		t.Errorf("the view's other session, once one ended: %v", err)
	}
	// Bounded: with two views in use, a third is refused, saying why.
	_, endThree := pipeSession(t, s.gw, only(1))
	// (Its context is done: were it let in, it would end at once.)
	done, cancel := context.WithCancel(ctx)
	cancel()
	in, out := io.Pipe()
	defer out.Close()
	err := s.gw.ServePipe(done, only(2), in, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "too many distinct views in use") {
		t.Errorf("a third view while two are in use: %v", err)
	}
	endOne()
	endThree()
	if v := s.gw.Stats().Views; v != before {
		t.Errorf("after every session ended: %d views, want %d", v, before)
	}
}
