package oauth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Login runs the authorization code flow now, asking consent: it probes
// the server for how it wants to be authorized (without the current
// token), and stores the grant. A server that lets the host in without
// authorization is ErrNotRequired.
func (h *Handler) Login(ctx context.Context, consent Consent) error {
	if h.machine() {
		return errors.New("the server is authorized from its config (" + h.set.OAuth.Grant + "); there is nothing to log in to")
	}
	req, resp, err := h.probe(ctx)
	if err != nil {
		return err
	}
	boundBody(resp)
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
	default:
		// Not drained: an SSE server that lets us in answers with a
		// stream that never ends.
		resp.Body.Close()
		if resp.StatusCode < 300 {
			h.endProbeSession(resp)
			return ErrNotRequired
		}
		return fmt.Errorf("the server answered %s, not a request for authorization", resp.Status)
	}
	defer resp.Body.Close()
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	h.remember(challengeScopes(challenges))
	if err := h.lockFlow(ctx); err != nil {
		return err
	}
	defer h.unlockFlow()
	return h.authorizationCode(ctx, req, resp, consent)
}

// probeBody is the initialize request Login sends: what a client's first
// request is, so the server answers it as it would the host's.
const probeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"switchboard","version":"login"}}}`

func (h *Handler) probe(ctx context.Context) (*http.Request, *http.Response, error) {
	method, body := http.MethodPost, []byte(probeBody)
	if h.set.SSE {
		method, body = http.MethodGet, nil
	}
	req, err := http.NewRequestWithContext(ctx, method, h.set.URL, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	client := h.set.Probe
	if client == nil {
		client = h.set.Client
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("asking the server how to authorize: %w", err)
	}
	return req, resp, nil
}

// endProbeSession closes the session a probe's initialize opened on a
// server that needed no authorization.
func (h *Handler) endProbeSession(resp *http.Response) {
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" || h.set.SSE {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, h.set.URL, nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", id)
	client := h.set.Probe
	if client == nil {
		client = h.set.Client
	}
	if resp, err := client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// Logout forgets the server's grants, here and in the store, and reports
// how many the store held.
func (h *Handler) Logout() (int, error) {
	h.mu.Lock()
	h.src, h.why, h.loaded = nil, "logged out", false
	h.mu.Unlock()
	return h.set.Store.Delete(h.set.URL, "")
}
