package oauth

import (
	"errors"
	"strconv"

	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/internal/clip"
)

// NeedsAuthError is why a server cannot be used until a person authorizes
// it: it asked for authorization, and no flow could run without them.
type NeedsAuthError struct {
	Server string // its name
	Why    string // what happened, never a token
}

func (e *NeedsAuthError) Error() string { return "needs authorization: " + e.Why }

// AuthError is a flow that ran and failed: the person refused, a
// token request was refused, the metadata would not do.
type AuthError struct{ Err error }

func (e *AuthError) Error() string { return "authorization failed: " + e.Err.Error() }

func (e *AuthError) Unwrap() error { return e.Err }

// IsAuthError reports whether err is an authorization that failed or
// that needs a person: what repeating the request cannot mend.
func IsAuthError(err error) bool {
	var ae *AuthError
	var na *NeedsAuthError
	return errors.As(err, &ae) || errors.As(err, &na)
}

// ErrNotRequired is Login's answer for a server that lets the host in
// without authorization.
var ErrNotRequired = errors.New("the server does not ask for authorization")

// plainError is err without what an authorization server's answer put
// in it: oauth2's RetrieveError carries the whole response body, which
// may echo the request (the code, the verifier, the client secret). Its
// error code and description stay, shortened.
func plainError(err error) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return clippedError{err}
	}
	msg := "the authorization server refused the token request"
	if re.Response != nil {
		msg += " (HTTP " + strconv.Itoa(re.Response.StatusCode) + ")"
	}
	if re.ErrorCode != "" {
		msg += ": " + clip.Text(re.ErrorCode)
		if re.ErrorDescription != "" {
			msg += ": " + clip.Text(re.ErrorDescription)
		}
	}
	return &refusedError{msg: msg, code: re.ErrorCode}
}

// refusedError is a token endpoint's refusal, without its body.
type refusedError struct{ msg, code string }

func (e *refusedError) Error() string { return e.msg }

// clippedError shortens a message that may quote a response (go-sdk puts
// a registration response's body in its decoding errors).
type clippedError struct{ err error }

func (e clippedError) Error() string {
	const max = 300
	msg := e.err.Error()
	if len(msg) > max {
		return msg[:max] + "…"
	}
	return msg
}

func (e clippedError) Unwrap() error { return e.err }
