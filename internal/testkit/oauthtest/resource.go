package oauthtest

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// prmPath is where RFC 9728 protected resource metadata lives; an
// endpoint's path is appended to it.
const prmPath = "/.well-known/oauth-protected-resource"

// resourceOwner is the one person every grant is from. Sessions are bound
// to it, not to a client, so a session survives a client authorizing
// again under a new registration.
const resourceOwner = "oauthtest-user"

// resourceServer serves the MCP endpoints behind the bearer check, and
// their metadata.
func (s *Server) resourceServer() http.Handler {
	mux := http.NewServeMux()
	s.mcp = newMCPServer("")
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
	s.protect(mux, "/mcp", s.URL, streamable)
	if s.opts.SSE {
		// An SSE session's requests carry no token info to the tools, so
		// each session gets a server that knows its client from the GET.
		sse := mcp.NewSSEHandler(func(r *http.Request) *mcp.Server { return newMCPServer(clientOf(r.Context())) }, nil)
		s.protect(mux, "/sse", s.SSEURL, sse)
	}
	return mux
}

// protect serves h at path for tokens issued for resource, with the
// metadata a client discovers the authorization server from.
func (s *Server) protect(mux *http.ServeMux, path, resource string, h http.Handler) {
	mux.Handle(prmPath+path, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               resource,
		AuthorizationServers:   []string{s.Issuer},
		ScopesSupported:        s.opts.Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "oauthtest",
	}))
	bearer := auth.RequireBearerToken(s.verifier(resource), &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: strings.TrimSuffix(resource, path) + prmPath + path,
		Scopes:              s.opts.Scopes,
	})
	mux.Handle(path, s.countUnauthorized(bearer(h)))
}

// verifier accepts the access tokens issued for resource that have not
// expired (the middleware checks Expiration).
func (s *Server) verifier(resource string) auth.TokenVerifier {
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		at := s.access[token]
		if at == nil {
			return nil, fmt.Errorf("%w: unknown access token", auth.ErrInvalidToken)
		}
		if at.resource != resource {
			return nil, fmt.Errorf("%w: token was issued for another resource", auth.ErrInvalidToken)
		}
		return &auth.TokenInfo{
			Scopes:     at.scopes,
			Expiration: at.expires,
			UserID:     resourceOwner,
			Extra:      map[string]any{"client_id": at.clientID},
		}, nil
	}
}

// countUnauthorized counts the 401s h answers.
func (s *Server) countUnauthorized(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&statusWriter{ResponseWriter: w, s: s}, r)
	})
}

// statusWriter sees the status a handler answers. Unwrap lets
// http.ResponseController reach the connection's Flush for SSE streams.
type statusWriter struct {
	http.ResponseWriter
	s *Server
}

func (w *statusWriter) WriteHeader(code int) {
	if code == http.StatusUnauthorized {
		w.s.mu.Lock()
		w.s.stats.Unauthorized++
		w.s.mu.Unlock()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// clientOf returns the client ID of the token a request came with.
func clientOf(ctx context.Context) string {
	if ti := auth.TokenInfoFromContext(ctx); ti != nil {
		id, _ := ti.Extra["client_id"].(string)
		return id
	}
	return ""
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to answer"`
}

// newMCPServer is the MCP server behind the bearer check. whoami names
// the client of the request's token (or sessionClient, for transports
// that pass no token info), so a test sees a call went through with it.
func newMCPServer(sessionClient string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "oauthtest", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami", Description: "Names the OAuth client the call's token was issued to."},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			id := sessionClient
			if req.Extra != nil && req.Extra.TokenInfo != nil {
				id, _ = req.Extra.TokenInfo.Extra["client_id"].(string)
			}
			return text("client " + id), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Answers its text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	return srv
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
