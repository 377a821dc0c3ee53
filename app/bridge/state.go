package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// state is what a bridge knows of its client's session: enough to answer
// what the daemon took with it and to start the session again on a new
// stream. It changes only in the methods below, under bridge.mu.
type state struct {
	closing bool
	// conn is where the client's messages go: nil while the daemon is
	// away, and while a new stream replays the client's initialize.
	conn io.ReadWriteCloser
	// live is the stream being read (conn, or the one replaying).
	live io.ReadWriteCloser

	// inflight are the client's requests the daemon has not answered, by
	// their id's value.
	inflight map[any]jsonrpc.ID
	// asked maps the ids the client was given for the daemon's own
	// requests (sampling, elicitation, roots) to the daemon's: numbered by
	// the bridge, so that a reply to a stream gone cannot answer a request
	// of the next one, whose ids start again.
	asked   map[string]jsonrpc.ID
	nextAsk int64
	// private are the bridge's own requests on live (the replay), by id,
	// to their method; their replies go to no one.
	private     map[string]string
	nextPrivate int64
	replaying   bool
	// down is the daemon away since the client's stream ended: the bridge
	// says so once an outage, not once a try. refusalSaid likewise for a
	// daemon that refuses the replayed initialize.
	down, refusalSaid bool

	init         *jsonrpc.Request // the client's initialize, replayed
	initID       jsonrpc.ID       // its id, answered by the daemon once
	initAnswered bool             // the daemon answered it: there is a session to restore
	initialized  bool             // the client sent notifications/initialized
	level        string           // the client's logging/setLevel
	levelParams  json.RawMessage
	subs         map[string]json.RawMessage // resources/subscribe params by URI
}

func newState() state {
	return state{
		inflight: map[any]jsonrpc.ID{},
		asked:    map[string]jsonrpc.ID{},
		private:  map[string]string{},
		subs:     map[string]json.RawMessage{},
	}
}

// clientAction is what to do with a client's message: answer it (the
// daemon is away), send another in its place, or pass it on as it came.
type clientAction struct {
	reply   jsonrpc.Message
	rewrite jsonrpc.Message
	forward bool
}

// fromClient notes msg and says where it goes, and on which stream.
func (s *state) fromClient(msg jsonrpc.Message) (io.ReadWriteCloser, clientAction) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.IsCall() {
			if m.Method == "notifications/initialized" {
				s.initialized = true
			}
			return s.conn, clientAction{forward: true}
		}
		if s.conn == nil {
			if m.Method == "ping" { // a keepalive must not end the client's session
				return nil, clientAction{reply: &jsonrpc.Response{ID: m.ID, Result: json.RawMessage("{}")}}
			}
			return nil, clientAction{reply: &jsonrpc.Response{ID: m.ID, Error: errDown}}
		}
		s.noteRequest(m)
		s.inflight[m.ID.Raw()] = m.ID
		return s.conn, clientAction{forward: true}
	case *jsonrpc.Response:
		key, _ := m.ID.Raw().(string)
		theirs, ok := s.asked[key]
		if !ok {
			return nil, clientAction{} // a reply to a stream gone
		}
		delete(s.asked, key)
		return s.conn, clientAction{rewrite: &jsonrpc.Response{ID: theirs, Result: m.Result, Error: m.Error}}
	}
	return nil, clientAction{}
}

// noteRequest keeps what a new stream must be told again.
func (s *state) noteRequest(m *jsonrpc.Request) {
	switch m.Method {
	case "initialize":
		s.init, s.initID, s.initAnswered = &jsonrpc.Request{Method: m.Method, Params: m.Params}, m.ID, false
	case "logging/setLevel":
		var p struct{ Level string }
		if json.Unmarshal(m.Params, &p) == nil {
			s.level, s.levelParams = p.Level, m.Params
		}
	case "resources/subscribe", "resources/unsubscribe":
		var p struct{ URI string }
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		if m.Method == "resources/subscribe" {
			s.subs[p.URI] = m.Params
		} else {
			delete(s.subs, p.URI)
		}
	}
}

// daemonAction is what to do with a daemon's message: fail the stream (a
// replay refused), send the daemon more, pass it on or send another in its
// place, and tell the client more after it.
type daemonAction struct {
	failed   error
	toDaemon []jsonrpc.Message
	online   bool // the replay is done: the client's session is back
	rewrite  jsonrpc.Message
	forward  bool
	toClient []jsonrpc.Message
}

// fromDaemon notes msg and says where it goes.
func (s *state) fromDaemon(msg jsonrpc.Message) daemonAction {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		key, _ := m.ID.Raw().(string)
		if method, ok := s.private[key]; ok {
			delete(s.private, key)
			if method != "initialize" {
				return daemonAction{} // the daemon's to keep; the client asked once
			}
			if m.Error != nil {
				return daemonAction{failed: fmt.Errorf("%w: %v", errRefused, m.Error)}
			}
			return s.online()
		}
		delete(s.inflight, m.ID.Raw())
		if s.init != nil && !s.initAnswered && m.Error == nil && m.ID == s.initID {
			s.initAnswered = true
		}
		return daemonAction{forward: true}
	case *jsonrpc.Request:
		if s.replaying {
			return daemonAction{} // the client hears list_changed once the session is back
		}
		if m.IsCall() {
			s.nextAsk++
			key := "switchboard-" + strconv.FormatInt(s.nextAsk, 10)
			s.asked[key] = m.ID
			id, _ := jsonrpc.MakeID(key)
			return daemonAction{rewrite: &jsonrpc.Request{ID: id, Method: m.Method, Params: m.Params}}
		}
		if m.Method == "notifications/cancelled" {
			return s.cancelled(m)
		}
		return daemonAction{forward: true}
	}
	return daemonAction{}
}

// cancelled gives the daemon's cancel of a request of its own the id the
// client knows that request by.
func (s *state) cancelled(m *jsonrpc.Request) daemonAction {
	var p map[string]json.RawMessage
	if json.Unmarshal(m.Params, &p) != nil {
		return daemonAction{forward: true}
	}
	var v any
	if json.Unmarshal(p["requestId"], &v) != nil {
		return daemonAction{forward: true}
	}
	theirs, err := jsonrpc.MakeID(v)
	if err != nil {
		return daemonAction{forward: true}
	}
	for key, id := range s.asked {
		if id == theirs {
			p["requestId"], _ = json.Marshal(key)
			params, _ := json.Marshal(p)
			return daemonAction{rewrite: &jsonrpc.Request{Method: m.Method, Params: params}}
		}
	}
	return daemonAction{} // a request of a stream gone, or answered
}

// errRefused is a new stream's daemon answering the client's replayed
// initialize with an error.
var errRefused = errors.New("the daemon refused the client's initialize")

// lost is the daemon gone: the client's requests in flight are answered
// with errLost, the daemon's to the client forgotten. announce says
// whether this outage is news (the stream was the client's session, not
// a try at restoring it); note whether the client's session takes a
// warning log message.
func (s *state) lost() (replies []jsonrpc.Message, announce, note bool) {
	for _, id := range s.inflight {
		replies = append(replies, &jsonrpc.Response{ID: id, Error: errLost})
	}
	clear(s.inflight)
	clear(s.asked)
	clear(s.private)
	s.conn, s.live, s.replaying = nil, nil, false
	announce, s.down = !s.down, true
	return replies, announce, announce && s.initAnswered && levelAllows(s.level, "warning")
}

// replay starts the client's session again on conn: the client's
// initialize under an id of the bridge's, whose answer (fromDaemon) sends
// the rest. Nil when there was no session yet: conn takes the client's
// messages at once.
func (s *state) replay(conn io.ReadWriteCloser) jsonrpc.Message {
	s.live = conn
	if s.init == nil || !s.initAnswered {
		s.conn, s.down, s.refusalSaid = conn, false, false
		return nil
	}
	s.replaying = true
	return &jsonrpc.Request{ID: s.privateID("initialize"), Method: "initialize", Params: s.init.Params}
}

// online follows the replayed initialize's answer: the client's
// notifications/initialized, log level and subscriptions go to the daemon
// again, then (goOnline) the client's own messages, and the client is
// told its lists may have changed.
func (s *state) online() daemonAction {
	act := daemonAction{online: true}
	if s.initialized {
		act.toDaemon = append(act.toDaemon, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage("{}")})
	}
	if s.levelParams != nil {
		act.toDaemon = append(act.toDaemon, &jsonrpc.Request{ID: s.privateID("logging/setLevel"), Method: "logging/setLevel", Params: s.levelParams})
	}
	for _, params := range s.subs {
		act.toDaemon = append(act.toDaemon, &jsonrpc.Request{ID: s.privateID("resources/subscribe"), Method: "resources/subscribe", Params: params})
	}
	for _, list := range []string{"tools", "prompts", "resources"} {
		act.toClient = append(act.toClient, &jsonrpc.Request{Method: "notifications/" + list + "/list_changed", Params: json.RawMessage("{}")})
	}
	return act
}

// goOnline makes live, once the replay's requests are written to it, the
// stream the client's messages go to: none of them overtakes the replay
// (a setLevel of the client's after an older one replayed).
func (s *state) goOnline() {
	s.replaying, s.conn, s.down, s.refusalSaid = false, s.live, false, false
}

// privatePrefix starts the ids of the bridge's own requests.
const privatePrefix = "switchboard-bridge-"

func (s *state) privateID(method string) jsonrpc.ID {
	s.nextPrivate++
	key := privatePrefix + strconv.FormatInt(s.nextPrivate, 10)
	s.private[key] = method
	id, _ := jsonrpc.MakeID(key)
	return id
}

// logLevels are MCP's, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// levelAllows says whether a client that set level gets a message at
// msg: one that set none gets none (as go-sdk's servers do).
func levelAllows(level, msg string) bool {
	l := slices.Index(logLevels, level)
	return l >= 0 && slices.Index(logLevels, msg) >= l
}

// logMessage is a notifications/message from the bridge itself.
func logMessage(level, text string) jsonrpc.Message {
	params, _ := json.Marshal(map[string]string{"level": level, "logger": "switchboard", "data": text})
	return &jsonrpc.Request{Method: "notifications/message", Params: params}
}
