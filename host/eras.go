package host

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host/internal/oauth"
)

// Protocol eras (DESIGN.md, "Protocol eras"). A server speaks 2025-11-25
// (initialize, sessions) or 2026-07-28 (stateless: server/discover, the
// version in every request's _meta), or both. go-sdk negotiates: asked for
// the modern version, it sends server/discover and falls back to
// initialize on the same connection on any error but a version mismatch.
// A legacy server that ignores server/discover would hold that for the
// whole connect, so the host bounds the probe (DiscoverTimeout), and
// remembers what each server spoke beside its cached tools: the next start
// asks for that version at once, and a legacy server pays no probe again.

// DefaultDiscoverTimeout bounds the server/discover probe of a server whose
// era is not known yet: a legacy server that ignores the request costs this
// much, once.
const DefaultDiscoverTimeout = 5 * time.Second

// methodDiscover is the 2026-07-28 handshake, and the era's probe.
const methodDiscover = "server/discover"

// protocolFor is the version to ask s for: the config's pin, else what s
// spoke last time, else the modern version. SSE is a transport of the
// legacy era.
func (h *Host) protocolFor(s *server, kind config.Transport) string {
	h.mu.Lock()
	era := s.era
	h.mu.Unlock()
	switch {
	case s.cfg.ProtocolVersion != "":
		return s.cfg.ProtocolVersion
	case kind == config.TransportSSE:
		return config.ProtocolLegacy
	case era != "":
		return era
	}
	return config.ProtocolModern
}

// discoverProbe is the sending middleware that bounds a probe: a
// server/discover left unanswered for timeout fails, and go-sdk goes on to
// initialize on the same connection. timedOut records that it did.
//
// An authorization the probe runs into (a person may be asked) is not held
// to timeout; when one was obtained and the bound passed meanwhile, the
// probe is sent once more.
//
// A probe the server refused for want of authorization (the host could
// not get it) is not followed by go-sdk's initialize: that would ask for
// the same authorization again, a second browser page for one connect.
// The initialize fails with the probe's error instead.
func discoverProbe(timeout time.Duration, timedOut *atomic.Bool) mcp.Middleware {
	var authErr error // the probe's authorization failure; one connect's requests are sequential
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case methodDiscover:
			case methodInitialize:
				if authErr != nil {
					return nil, authErr
				}
				return next(ctx, method, req)
			default:
				return next(ctx, method, req)
			}
			probeCtx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			probeCtx, authorized := oauth.UnderProbe(probeCtx, ctx)
			res, err := next(probeCtx, method, req)
			if err != nil && ctx.Err() == nil && errors.Is(probeCtx.Err(), context.DeadlineExceeded) && authorized() {
				// The bound went to a person's consent, which the
				// authorization was not held to: ask again, with the token.
				retryCtx, cancel := context.WithTimeout(ctx, timeout)
				defer cancel()
				probeCtx = retryCtx
				res, err = next(probeCtx, method, req)
			}
			switch {
			case err != nil && ctx.Err() == nil && errors.Is(probeCtx.Err(), context.DeadlineExceeded):
				timedOut.Store(true)
				return nil, fmt.Errorf("no answer to %s within %s", methodDiscover, timeout)
			case oauth.IsAuthError(err):
				authErr = err
			}
			return res, err
		}
	}
}

// methodInitialize is the 2025-11-25 handshake.
const methodInitialize = "initialize"

func (h *Host) discoverTimeout() time.Duration {
	if h.opts.DiscoverTimeout > 0 {
		return h.opts.DiscoverTimeout
	}
	return DefaultDiscoverTimeout
}

// modern reports whether sess speaks the stateless era.
func modern(sess *mcp.ClientSession) bool {
	r := sess.InitializeResult()
	return r != nil && r.ProtocolVersion >= config.ProtocolModern
}

// alive is the health check under 2026-07-28, which has no ping: a cheap
// request (completion/complete with nothing to complete), to which any
// answer, an error one included, shows the server is there. Only no
// answer, or a failed transport, is a failure.
func alive(ctx context.Context, sess *mcp.ClientSession) error {
	_, err := sess.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "switchboard-health"},
		Argument: mcp.CompleteParamsArgument{Name: "x"},
	})
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return nil
	}
	return err
}

// sessionProtocol is the version sess speaks, "" before it is known.
func sessionProtocol(sess *mcp.ClientSession) string {
	if r := sess.InitializeResult(); r != nil {
		return r.ProtocolVersion
	}
	return ""
}

// logLevelMeta is the sending middleware that asks a 2026-07-28 server for
// its logs: that era has no logging/setLevel, and the level travels in
// every request's _meta instead.
func logLevelMeta(level mcp.LoggingLevel) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if cs, ok := req.GetSession().(*mcp.ClientSession); ok && modern(cs) {
				if p := req.GetParams(); p != nil && !isNilParams(p) {
					m := p.GetMeta()
					if m == nil {
						m = map[string]any{}
					}
					if _, set := m[mcp.MetaKeyLogLevel]; !set {
						m[mcp.MetaKeyLogLevel] = level
						p.SetMeta(m)
					}
				}
			}
			return next(ctx, method, req)
		}
	}
}

// isNilParams reports whether p is a typed nil (a request sent without
// params), whose meta cannot be set.
func isNilParams(p mcp.Params) bool {
	v := reflect.ValueOf(p)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
