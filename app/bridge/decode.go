package bridge

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// head is what the bridge reads of every message: encoding/json skips the
// rest (params, result) without keeping it. go-sdk's DecodeMessage
// allocates a decoder buffer and a copy of the params or result for each
// message, about 50 KiB for a small call's reply (BenchmarkCall), which
// a bridge would make for every message only to pass its bytes on.
type head struct {
	ID     any             `json:"id"`
	Method *string         `json:"method"`
	Error  json.RawMessage `json:"error"`
}

// errReplyFailed stands for a reply's error, which the bridge only needs
// to know is there.
var errReplyFailed = errors.New("the reply is an error")

// read is the message in line as far as the bridge looks at it: a
// Request with its id and method, or a Response with its id and, for an
// error reply, errReplyFailed. Where whole says the bridge keeps or
// changes the message, it is go-sdk's DecodeMessage of the line.
func read(line []byte, whole func(jsonrpc.Message) bool) (jsonrpc.Message, error) {
	var h head
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, err
	}
	id, err := jsonrpc.MakeID(h.ID)
	if err != nil {
		return nil, err
	}
	var m jsonrpc.Message
	switch {
	case h.Method != nil:
		m = &jsonrpc.Request{ID: id, Method: *h.Method}
	case id.IsValid():
		r := &jsonrpc.Response{ID: id}
		if len(h.Error) > 0 && string(h.Error) != "null" {
			r.Error = errReplyFailed
		}
		m = r
	default:
		return nil, errors.New("neither a request nor a reply")
	}
	if whole(m) {
		return jsonrpc.DecodeMessage(line)
	}
	return m, nil
}

// clientWhole says which of a client's messages the bridge decodes whole:
// the requests it replays, and replies, whose id it changes.
func clientWhole(m jsonrpc.Message) bool {
	switch m := m.(type) {
	case *jsonrpc.Request:
		switch m.Method {
		case "initialize", "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
			return m.IsCall()
		}
		return false
	}
	return true
}

// logMethod is a log notification: the daemon's own (logger "switchboard",
// a server's drop or failure) are also said on stderr (news).
const logMethod = "notifications/message"

// news is the text of the daemon's own log notification msg, for stderr:
// the client shows it in its log at best, a person reading that log
// should find why a server is gone. "" for anything else.
func news(msg jsonrpc.Message) string {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != logMethod {
		return ""
	}
	var p struct {
		Logger string `json:"logger"`
		Data   any    `json:"data"`
	}
	if json.Unmarshal(req.Params, &p) != nil || p.Logger != daemonLogger {
		return ""
	}
	text, _ := p.Data.(string)
	return text
}

// daemonLogger is the logger name of the gateway's own log notifications.
const daemonLogger = "switchboard"

// daemonWhole says which of the daemon's messages the bridge decodes
// whole: its requests and cancels, whose ids it changes, and the replies
// to its own requests (a refused initialize is said in full).
func daemonWhole(m jsonrpc.Message) bool {
	switch m := m.(type) {
	case *jsonrpc.Request:
		return m.IsCall() || m.Method == "notifications/cancelled" || m.Method == logMethod
	case *jsonrpc.Response:
		s, _ := m.ID.Raw().(string)
		return strings.HasPrefix(s, privatePrefix)
	}
	return false
}
