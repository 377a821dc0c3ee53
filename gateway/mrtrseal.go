package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/seal"
)

// With session keys, a round's requestState is sealed (DESIGN.md,
// "Sealed requestState"): it names the round, and binds the caller, an
// expiry and the request it belongs to (the tool and a digest of its
// arguments), so any replica can tell it is genuine and meant for this
// call by this caller. A replica that holds no round for a genuine state
// (another one minted it, or the round was dropped) runs the call again
// upstream, and answers the upstream's questions from the inputResponses
// the client came back with, matched by their key ("elicitation-1", …):
// an upstream that asks the same questions in the same order gets the
// client's answers without the client being asked again; a question
// that is new goes to the client as usual.

// roundBinding is what a sealed requestState binds. The arguments'
// digest is taken when first needed (a state sealed, or a call that
// continues a round): most calls ask nothing, and digesting decodes and
// encodes their arguments again.
type roundBinding struct {
	caller, tool string
	raw          json.RawMessage // the call's arguments
	once         sync.Once
	digest       string
}

// args is the digest of the call's arguments (argsDigest).
func (b *roundBinding) args() string {
	b.once.Do(func() { b.digest = argsDigest(b.raw) })
	return b.digest
}

// same reports whether b and o bind the same caller, tool and arguments.
func (b *roundBinding) same(o *roundBinding) bool {
	return b.caller == o.caller && b.tool == o.tool && b.args() == o.args()
}

type sealedRound struct {
	Round string `json:"r"`
	Tool  string `json:"t"`
	Args  string `json:"a"`
}

func bindingOf(req *mcp.CallToolRequest) *roundBinding {
	b := &roundBinding{tool: req.Params.Name, raw: req.Params.Arguments}
	if req.Extra != nil {
		b.caller = callerOf(req.Extra.TokenInfo, req.Extra.Header)
	}
	return b
}

// argsDigest digests arguments as JSON with its objects' keys sorted, so
// that a client that sends them again in another order sends the same.
func argsDigest(raw json.RawMessage) string {
	var v any
	if len(raw) > 0 && json.Unmarshal(raw, &v) == nil {
		raw, _ = json.Marshal(v)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:16])
}

// stateOf is the requestState the client echoes for r: its id, sealed
// when the gateway has keys.
func (g *Gateway) stateOf(r *round) string {
	keys := g.roundKeys.Load()
	if keys == nil {
		return r.id
	}
	payload, _ := json.Marshal(sealedRound{Round: r.id, Tool: r.binding.tool, Args: r.binding.args()})
	return keys.kr.Seal(purposeRound, r.binding.caller, time.Now().Add(roundIdle), payload)
}

// roundOf is the round a requestState continues; nil, nil when the state
// is genuine but this replica holds no round for it (the call runs again
// here); an error when the state is refused.
func (g *Gateway) roundOf(req *mcp.CallToolRequest, state string) (*round, error) {
	keys := g.roundKeys.Load()
	id := state
	if keys != nil {
		b := bindingOf(req)
		payload, err := keys.kr.Open(purposeRound, b.caller, time.Now(), state)
		var s sealedRound
		if err == nil {
			err = json.Unmarshal(payload, &s)
		}
		switch {
		case errors.Is(err, seal.ErrOtherCaller):
			return nil, errors.New("switchboard: requestState refused: it was given to another caller; call again without it")
		case errors.Is(err, seal.ErrExpired):
			return nil, errors.New("switchboard: requestState refused: expired; call again without it")
		case errors.Is(err, seal.ErrUnknownKey):
			return nil, errors.New("switchboard: requestState refused: sealed with a key this gateway no longer has; call again without it")
		case err != nil:
			return nil, fmt.Errorf("switchboard: requestState refused: %s; call again without it", sealError(err))
		case s.Tool != b.tool || s.Args != b.args():
			return nil, errors.New("switchboard: requestState refused: it belongs to another request (another tool or other arguments); call again without it")
		}
		id = s.Round
	}
	g.mu.Lock()
	r := g.rounds[id]
	g.mu.Unlock()
	if r == nil && keys == nil {
		return nil, errors.New("switchboard: unknown or expired requestState; call again without it")
	}
	// A bare id binds nothing by itself: the round does. Whoever learns
	// an id (a log, a proxy) must not answer another caller's question,
	// nor carry a round over to another tool or other arguments.
	if r != nil {
		switch b := bindingOf(req); {
		case r.binding.caller != b.caller:
			return nil, errors.New("switchboard: requestState refused: it was given to another caller; call again without it")
		case !r.binding.same(b):
			return nil, errors.New("switchboard: requestState refused: it belongs to another request (another tool or other arguments); call again without it")
		}
	}
	return r, nil
}
