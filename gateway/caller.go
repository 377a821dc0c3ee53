package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// CallerOf names who sent r, for what binds to a caller (sealed session
// ids, rate buckets, the audit trail): the authenticated user when a
// token verifier put one in r's context (auth.TokenInfo.UserID), else
// "token:" and a digest of the bearer token (never the token itself),
// else "" (no authentication: every caller is the same one).
func CallerOf(r *http.Request) string {
	return callerFrom(auth.TokenInfoFromContext(r.Context()), r.Header)
}

// callerFrom is CallerOf of what go-sdk keeps of a request in its
// RequestExtra.
func callerFrom(ti *auth.TokenInfo, header http.Header) string {
	if ti != nil && ti.UserID != "" {
		return "user:" + ti.UserID
	}
	if tok, ok := strings.CutPrefix(header.Get("Authorization"), "Bearer "); ok && tok != "" {
		sum := sha256.Sum256([]byte(tok))
		return "token:" + hex.EncodeToString(sum[:8])
	}
	return ""
}
