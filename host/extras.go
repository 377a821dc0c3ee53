package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// extrasWait bounds how long a server just connected waits for the host
// to be quiet before it lists the rest of its catalog (listExtras). In a
// burst of connects, one server's resources and prompts would take the
// CPU the others need to list their tools; once every server has had its
// first attempt, nothing competes. A server that takes long to connect
// holds the others' extras back no longer than this.
const extrasWait = time.Second

// extrasAtOnce is how many servers list the rest of their catalog at a
// time. Once a burst of connects is over, all of them would otherwise list
// in the same instant: a hundred servers' answers decoded at once is a
// peak of garbage the process keeps as headroom long after. A few at a
// time keep the cores busy while each waits for its server.
const extrasAtOnce = 4

// extrasSlotHold is how long a server keeps its slot: one whose lists are
// slow (waiting for its answers costs nothing) lets the next one go
// instead of holding it up for its whole startup timeout.
const extrasSlotHold = 250 * time.Millisecond

// listExtras does, for a connection just published, what can follow its
// tools (DESIGN.md F12, F25): list resources and templates, and prompts,
// each published when it arrives (EventResources, EventPrompts, to
// subscribers: the backlog keeps what servers say), and
// renew the previous connection's resource subscriptions. The three go on
// at once, each bounded by the startup timeout. First it waits for the
// host to be quiet, at most extrasWait, and for one of extrasAtOnce
// slots, which it keeps at most extrasSlotHold. It closes c.listed when
// done, or at once when ctx, the connection's, ends.
func (h *Host) listExtras(ctx context.Context, s *server, c *conn) {
	defer h.listedExtras(s, c)
	h.mu.Lock()
	quiet := h.quietLocked()
	timeout := s.cfg.EffectiveStartupTimeout()
	h.mu.Unlock()
	wait := time.NewTimer(extrasWait)
	defer wait.Stop()
	select {
	case <-quiet:
	case <-wait.C:
	case <-ctx.Done():
		return
	}
	select {
	case h.extrasSlots <- struct{}{}:
	case <-ctx.Done():
		return
	}
	var free sync.Once
	release := func() { free.Do(func() { <-h.extrasSlots }) }
	hold := time.AfterFunc(extrasSlotHold, release)
	defer func() {
		hold.Stop()
		release()
	}()
	if h.hooks.listing != nil {
		h.hooks.listing(s.cfg.Name)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	caps := c.sess.InitializeResult().Capabilities
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	began := time.Now()
	var wg sync.WaitGroup
	if caps.Resources != nil {
		wg.Go(func() { h.listResources(ctx, s, c.sess, timeout) })
	}
	if caps.Prompts != nil {
		wg.Go(func() { h.listPrompts(ctx, s, c.sess, timeout) })
	}
	h.resubscribe(ctx, s, c.sess, timeout)
	wg.Wait()
	if caps.Resources != nil || caps.Prompts != nil {
		h.mu.Lock()
		resources, templates, prompts := len(s.resources), len(s.templates), len(s.prompts)
		h.mu.Unlock()
		h.log.Info("listed", "server", s.cfg.Name, "resources", resources, "templates", templates,
			"prompts", prompts, "took", since(began))
	}
}

// listedExtras closes c.listed, and with it, if c is still the server's
// connection, what it listed replaces what the cache had: in the catalog,
// in one hold of the lock so no reader sees one without the other, and in
// the cache, beside the tools, for the next start (DESIGN.md F15).
func (h *Host) listedExtras(s *server, c *conn) {
	h.mu.Lock()
	close(c.listed)
	changed := h.changeCatalogLocked(s, catalogChange{op: catalogListed, sess: c.sess})
	current := s.session == c.sess
	h.mu.Unlock()
	if changed {
		h.events.publishUnbuffered(Event{Type: EventResources, Server: s.cfg.Name})
		h.events.publishUnbuffered(Event{Type: EventPrompts, Server: s.cfg.Name})
	}
	if current {
		h.storeCache(s, c.sess)
	}
}

// listResources lists a new connection's resources and templates and
// publishes them together. A failed list is noted in the server's log:
// resources are extras, and a server whose listing is broken still has
// usable tools.
func (h *Host) listResources(ctx context.Context, s *server, sess *mcp.ClientSession, timeout time.Duration) {
	resources, err := collect(sess.Resources(ctx, nil))
	h.noteExtra(ctx, s, "resources/list", err, timeout)
	templates, terr := collect(sess.ResourceTemplates(ctx, nil))
	h.noteExtra(ctx, s, "resources/templates/list", terr, timeout)
	if err != nil && terr != nil {
		return
	}
	if h.publishExtra(s, catalogChange{op: catalogResources, sess: sess, catalog: h.maskCatalog(catalog{resources: resources, templates: templates})}) {
		h.events.publishUnbuffered(Event{Type: EventResources, Server: s.cfg.Name})
	}
}

// listPrompts lists a new connection's prompts and publishes them.
func (h *Host) listPrompts(ctx context.Context, s *server, sess *mcp.ClientSession, timeout time.Duration) {
	prompts, err := collect(sess.Prompts(ctx, nil))
	h.noteExtra(ctx, s, "prompts/list", err, timeout)
	if err != nil {
		return
	}
	if h.publishExtra(s, catalogChange{op: catalogPrompts, sess: sess, catalog: h.maskCatalog(catalog{prompts: prompts})}) {
		h.events.publishUnbuffered(Event{Type: EventPrompts, Server: s.cfg.Name})
	}
}

// publishExtra makes the change, under the lock, and reports whether it
// was made (its session is still the server's).
func (h *Host) publishExtra(s *server, ch catalogChange) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changeCatalogLocked(s, ch)
}

// setLogLevel asks a server that offers logging for the host's log level,
// on a goroutine of its own, and returns a channel closed once it has its
// answer.
func (h *Host) setLogLevel(ctx context.Context, s *server, sess *mcp.ClientSession, timeout time.Duration) <-chan struct{} {
	caps := sess.InitializeResult().Capabilities
	if caps == nil || caps.Logging == nil || modern(sess) {
		// 2026-07-28 has no logging/setLevel: a server sends what it logs.
		return closedChan()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		//lint:ignore SA1019 the level is how 2025-11-25 servers learn to send logs
		err := sess.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: h.opts.LogLevel})
		h.noteExtra(ctx, s, "logging/setLevel", err, timeout)
	}()
	return done
}

// resubscribe renews the resource subscriptions of the previous session.
func (h *Host) resubscribe(ctx context.Context, s *server, sess *mcp.ClientSession, timeout time.Duration) {
	h.mu.Lock()
	var uris []string
	for uri := range s.subscriptions {
		uris = append(uris, uri)
	}
	h.mu.Unlock()
	for _, uri := range uris {
		err := sess.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
		h.noteExtra(ctx, s, "resubscribing to "+uri, err, timeout)
	}
}

// noteExtra notes a failed request of listExtras in the server's log,
// unless the connection ended: then nothing is left to fix.
func (h *Host) noteExtra(ctx context.Context, s *server, what string, err error, timeout time.Duration) {
	switch {
	case err == nil, errors.Is(ctx.Err(), context.Canceled):
		return
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("no answer within startup timeout %s: %w", timeout, err)
	}
	h.addLog(s, LogLine{Level: LevelWarn, Text: what + ": " + err.Error()})
}

// quietLocked returns a channel closed once no server is on its first
// connect (connectingLocked).
func (h *Host) quietLocked() <-chan struct{} {
	if !h.connectingLocked() {
		return closedChan()
	}
	if h.quiet == nil || isClosed(h.quiet) {
		h.quiet = make(chan struct{})
	}
	return h.quiet
}

// noteQuietLocked wakes whoever waits for the host to be quiet, once it
// is. It looks only while someone waits.
func (h *Host) noteQuietLocked() {
	if h.quiet != nil && !isClosed(h.quiet) && !h.connectingLocked() {
		close(h.quiet)
	}
}
