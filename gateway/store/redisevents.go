package store

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
)

// The bounds of a stream's events in Redis: the last EventsPerStream
// events of each stream, fewer when they hold more than
// EventBytesPerStream bytes (the last event is always kept, however
// large), for EventTTL after the stream's last event. A client that
// resumes from an event dropped since gets go-sdk's answer to purged
// events (400), and starts over.
const (
	EventsPerStream     = 1000
	EventBytesPerStream = 4 << 20
	EventTTL            = time.Hour
)

// redisEvents is go-sdk's EventStore on Redis. A stream is a list of its
// events' data and a hash: "first", the index of the list's head (events
// dropped from the front move it), and "bytes", the list's size. A
// session's set names its streams, for SessionClosed. Each script runs
// whole in Redis, so an event is stored once and in order whichever
// replica appends it, and After sees either all of an Append or none.
//
// Redis down must not stop a session (DESIGN.md, "The shared store on
// Redis"): Open's error is dropped, and an event Append could not store
// is still sent on its stream by go-sdk, which counts it in the event
// ids. The stream in Redis would then be short of it, and a replay would
// give the wrong events for the ids; so the replica counts the events it
// missed, a replay from it is refused as purged until an Append works
// again, and that Append drops what the stream kept and moves its head
// past the missed events, so that indices and events agree again. (A
// replica that dies with a count unsent leaves the stream short: a
// resumption from that outage may get events that follow it.) A stream
// Redis lost (a restart without persistence) is marked broken by the
// next Append: its replays are refused as purged.
type redisEvents struct {
	r *Redis

	mu     sync.Mutex
	missed map[streamID]int
}

type streamID struct{ session, stream string }

func (e *redisEvents) keys(session, stream string) []string {
	r := e.r
	return []string{r.key("evmeta", session, stream), r.key("evlist", session, stream), r.key("evstreams", session)}
}

var openScript = redis.NewScript(`
redis.call('HSETNX', KEYS[1], 'first', 0)
redis.call('HSETNX', KEYS[1], 'bytes', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return 0
`)

// appendScript adds an event and drops the oldest while the stream holds
// more than ARGV[4] events or ARGV[5] bytes, keeping the newest. ARGV[6]
// events missed before this one: the stream is emptied first, its head
// moved past them. A stream with no hash was not opened in this Redis
// (its Open failed, or Redis lost it in a restart): its indices are not
// known, and it is marked broken.
var appendScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'first', 0, 'bytes', 0, 'broken', 1)
end
local skip = tonumber(ARGV[6])
if skip > 0 then
  local kept = redis.call('LLEN', KEYS[2])
  redis.call('DEL', KEYS[2])
  redis.call('HINCRBY', KEYS[1], 'first', kept + skip)
  redis.call('HSET', KEYS[1], 'bytes', 0)
end
local n = redis.call('RPUSH', KEYS[2], ARGV[3])
local bytes = redis.call('HINCRBY', KEYS[1], 'bytes', string.len(ARGV[3]))
local maxn, maxb = tonumber(ARGV[4]), tonumber(ARGV[5])
local dropped = 0
while n > 1 and (n > maxn or bytes > maxb) do
  local d = redis.call('LPOP', KEYS[2])
  bytes = bytes - string.len(d)
  n = n - 1
  dropped = dropped + 1
end
if dropped > 0 then
  redis.call('HINCRBY', KEYS[1], 'first', dropped)
  redis.call('HSET', KEYS[1], 'bytes', bytes)
end
redis.call('HSETNX', KEYS[1], 'first', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return n
`)

// afterScript answers {0, data...} for the events after index ARGV[1],
// {-1} for a stream it does not know, {-2} when the first of them was
// dropped or the stream is broken.
var afterScript = redis.NewScript(`
local first = redis.call('HGET', KEYS[1], 'first')
if not first then
  return {-1}
end
if redis.call('HEXISTS', KEYS[1], 'broken') == 1 then
  return {-2}
end
local start = tonumber(ARGV[1]) + 1 - tonumber(first)
if start < 0 then
  return {-2}
end
local out = {0}
for _, d in ipairs(redis.call('LRANGE', KEYS[2], start, -1)) do
  out[#out + 1] = d
end
return out
`)

// Open readies the stream's keys. Its error is dropped: go-sdk would
// refuse the request, and a session goes on without Redis (Append
// initializes the keys as well).
func (e *redisEvents) Open(ctx context.Context, session, stream string) error {
	ttl := EventTTL.Milliseconds()
	_ = openScript.Run(ctx, e.r.c, e.keys(session, stream), stream, ttl).Err()
	return nil
}

func (e *redisEvents) Append(ctx context.Context, session, stream string, data []byte) error {
	id := streamID{session, stream}
	e.mu.Lock()
	skip := e.missed[id]
	e.mu.Unlock()
	ttl := EventTTL.Milliseconds()
	err := appendScript.Run(ctx, e.r.c, e.keys(session, stream), stream, ttl, data, EventsPerStream, EventBytesPerStream, skip).Err()
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		if e.missed == nil {
			e.missed = map[streamID]int{}
		}
		e.missed[id]++
		return e.r.err("events append", err)
	}
	// Appends of one stream come one at a time (go-sdk holds the
	// stream's lock): the count read above is the count now.
	delete(e.missed, id)
	return nil
}

// After reads the events after index at once, so that a replay is all of
// them or an error, never a part.
func (e *redisEvents) After(ctx context.Context, session, stream string, index int) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		e.mu.Lock()
		missed := e.missed[streamID{session, stream}]
		e.mu.Unlock()
		if missed > 0 {
			yield(nil, fmt.Errorf("store %s: events after %d, stream %q, session %q: %d not stored: %w", e.r.name, index, stream, session, missed, mcp.ErrEventsPurged))
			return
		}
		res, err := afterScript.Run(ctx, e.r.c, e.keys(session, stream)[:2], strconv.Itoa(index)).Slice()
		if err != nil {
			yield(nil, e.r.err("events after", err))
			return
		}
		status, _ := res[0].(int64)
		switch status {
		case -1:
			yield(nil, fmt.Errorf("store %s: events after: unknown stream %q of session %q", e.r.name, stream, session))
			return
		case -2:
			yield(nil, fmt.Errorf("store %s: events after %d, stream %q, session %q: %w", e.r.name, index, stream, session, mcp.ErrEventsPurged))
			return
		}
		for _, d := range res[1:] {
			s, _ := d.(string)
			if !yield([]byte(s), nil) {
				return
			}
		}
	}
}

// SessionClosed drops the session's events on every replica. The gateway
// calls it for a DELETE alone: a session that closes on one replica (a
// drain, its idle time) goes on on another, which resumes its streams
// (DESIGN.md, "Sealed sessions").
func (e *redisEvents) SessionClosed(ctx context.Context, session string) error {
	e.mu.Lock()
	for id := range e.missed {
		if id.session == session {
			delete(e.missed, id)
		}
	}
	e.mu.Unlock()
	r := e.r
	set := r.key("evstreams", session)
	streams, err := r.c.SMembers(ctx, set).Result()
	if err != nil {
		return r.err("events session closed", err)
	}
	keys := []string{set}
	for _, s := range streams {
		keys = append(keys, e.keys(session, s)[:2]...)
	}
	if err := r.c.Del(ctx, keys...).Err(); err != nil {
		return r.err("events session closed", err)
	}
	return nil
}

var _ mcp.EventStore = (*redisEvents)(nil)
