package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallerOf names who sent r, for what binds to a caller (sealed session
// ids, rate buckets, the audit trail): the authenticated user when a
// token verifier put one in r's context (auth.TokenInfo.UserID), else
// "token:" and a digest of the bearer token (never the token itself),
// else "" (no authentication: every caller is the same one).
func CallerOf(r *http.Request) string {
	return callerOf(auth.TokenInfoFromContext(r.Context()), r.Header)
}

// callerOfExtra is CallerOf for a request go-sdk handed a handler: the
// HTTP request's token info and header are in its extra; nil over stdio.
func callerOfExtra(extra *mcp.RequestExtra) string {
	if extra == nil {
		return ""
	}
	return callerOf(extra.TokenInfo, extra.Header)
}

// userOf is the authenticated user of a request go-sdk handed a handler
// (TokenInfo.UserID), "" for none: what the audit trail names.
func userOf(extra *mcp.RequestExtra) string {
	if extra == nil || extra.TokenInfo == nil {
		return ""
	}
	return extra.TokenInfo.UserID
}

func callerOf(ti *auth.TokenInfo, header http.Header) string {
	if ti != nil && ti.UserID != "" {
		return "user:" + ti.UserID
	}
	if tok := bearerOf(header); tok != "" {
		sum := sha256.Sum256([]byte(tok))
		return "token:" + hex.EncodeToString(sum[:8])
	}
	return ""
}

// bearerOf is the bearer token of header, read as the resource guard
// reads it (the scheme in any case, the token's blanks trimmed: RFC
// 7235 §2.1): one token is one caller however the client spells the
// header, or each spelling would be a rate bucket of its own.
func bearerOf(header http.Header) string {
	scheme, tok, ok := strings.Cut(header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}
