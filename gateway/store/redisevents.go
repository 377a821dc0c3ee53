package store

import (
	"context"
	"fmt"
	"iter"
	"strconv"
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
type redisEvents struct{ r *Redis }

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
// more than ARGV[4] events or ARGV[5] bytes, keeping the newest.
var appendScript = redis.NewScript(`
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
// dropped.
var afterScript = redis.NewScript(`
local first = redis.call('HGET', KEYS[1], 'first')
if not first then
  return {-1}
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

func (e *redisEvents) Open(ctx context.Context, session, stream string) error {
	ttl := EventTTL.Milliseconds()
	if err := openScript.Run(ctx, e.r.c, e.keys(session, stream), stream, ttl).Err(); err != nil {
		return e.r.err("events open", err)
	}
	return nil
}

func (e *redisEvents) Append(ctx context.Context, session, stream string, data []byte) error {
	ttl := EventTTL.Milliseconds()
	if err := appendScript.Run(ctx, e.r.c, e.keys(session, stream), stream, ttl, data, EventsPerStream, EventBytesPerStream).Err(); err != nil {
		return e.r.err("events append", err)
	}
	return nil
}

// After reads the events after index at once, so that a replay is all of
// them or an error, never a part.
func (e *redisEvents) After(ctx context.Context, session, stream string, index int) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
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

func (e *redisEvents) SessionClosed(ctx context.Context, session string) error {
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
