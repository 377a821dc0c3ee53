package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/switchboard-mcp/switchboard/internal/redact"
)

// DefaultPrefix starts every key a Redis store writes, unless the url
// names another (?prefix=): replicas of one gateway share a prefix, two
// gateways on one Redis each have their own.
const DefaultPrefix = "switchboard:"

// openWait bounds Open's first PING: a replica whose Redis does not
// answer says so at start rather than serve without it (DESIGN.md, "The
// shared store on Redis").
const openWait = 5 * time.Second

// Redis is a Store on one Redis server (not Cluster), shared by every
// replica that opens the same url with the same prefix.
type Redis struct {
	c      *redis.Client
	prefix string
	// name is the url without its credentials or query: what errors say.
	name   string
	red    *redact.Redactor
	events *redisEvents

	mu     sync.Mutex
	closed bool
	subs   map[*redis.PubSub]struct{}
	wg     sync.WaitGroup
}

// Open opens the store a url names: "" is a Memory of this process;
// redis://[:PASSWORD@]HOST:PORT/DB or rediss:// (TLS) a Redis store, with
// go-redis's own query options and ?prefix=KEYS (DefaultPrefix without
// it). It fails when Redis does not answer a PING within 5 seconds. The
// password is masked in every error.
func Open(rawURL string) (Store, error) {
	if rawURL == "" {
		return NewMemory(), nil
	}
	r, err := OpenRedis(rawURL)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// OpenRedis is Open for a redis:// or rediss:// url alone.
func OpenRedis(rawURL string) (*Redis, error) {
	red := redact.New()
	red.AddURL(rawURL)
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, red.Error(fmt.Errorf("store %s: %w", rawURL, err))
	}
	name := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return nil, fmt.Errorf("store %s: want redis://HOST:PORT/DB or rediss://", name)
	}
	q := u.Query()
	prefix := DefaultPrefix
	if q.Has("prefix") {
		prefix = q.Get("prefix")
		if prefix == "" {
			return nil, fmt.Errorf("store %s: ?prefix= is empty", name)
		}
		q.Del("prefix")
		u.RawQuery = q.Encode()
	}
	opts, err := redis.ParseURL(u.String())
	if err != nil {
		return nil, red.Error(fmt.Errorf("store %s: %w", name, err))
	}
	// A replica's own retries hide an outage for no longer than a
	// request may wait: the caller decides what a replica does then.
	opts.MaxRetries = 1
	opts.DialerRetries = 1
	opts.DialTimeout = 2 * time.Second
	// No CLIENT SETINFO: a Redis before 7.2 answers it with an error on
	// every new connection.
	opts.DisableIdentity = true
	r := &Redis{c: redis.NewClient(opts), prefix: prefix, name: name, red: red, subs: map[*redis.PubSub]struct{}{}}
	r.events = &redisEvents{r: r}
	ctx, cancel := context.WithTimeout(context.Background(), openWait)
	defer cancel()
	if err := r.c.Ping(ctx).Err(); err != nil {
		r.c.Close()
		return nil, r.err("does not answer", err)
	}
	return r, nil
}

// err names the store and masks its password.
func (r *Redis) err(what string, err error) error {
	return r.red.Error(fmt.Errorf("store %s: %s: %w", r.name, what, err))
}

// key is a key of this store's: the prefix, the kind, then each part
// preceded by its length, so that no two lists of parts give one key
// whatever bytes a session id holds.
func (r *Redis) key(kind string, parts ...string) string {
	var b strings.Builder
	b.WriteString(r.prefix)
	b.WriteString(kind)
	for _, p := range parts {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(len(p)))
		b.WriteByte(':')
		b.WriteString(p)
	}
	return b.String()
}

// Ping reports whether Redis answers: /readyz asks it.
func (r *Redis) Ping(ctx context.Context) error {
	if err := r.c.Ping(ctx).Err(); err != nil {
		return r.err("does not answer", err)
	}
	return nil
}

// String is the store's url without credentials.
func (r *Redis) String() string { return r.name }

// Revoke keeps a key that expires when the session's sealed id does, and
// drops the session's state.
func (r *Redis) Revoke(ctx context.Context, session string, until time.Time) error {
	_, err := r.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		if time.Until(until) > 0 {
			p.Set(ctx, r.key("revoked", session), "1", 0)
			p.PExpireAt(ctx, r.key("revoked", session), until)
		}
		p.Del(ctx, r.key("session", session))
		return nil
	})
	if err != nil {
		return r.err("revoke", err)
	}
	return nil
}

func (r *Redis) Revoked(ctx context.Context, session string) (bool, error) {
	n, err := r.c.Exists(ctx, r.key("revoked", session)).Result()
	if err != nil {
		return false, r.err("revoked", err)
	}
	return n > 0, nil
}

// PutSession keeps state for ttl; a ttl of zero or less keeps nothing.
func (r *Redis) PutSession(ctx context.Context, session string, state []byte, ttl time.Duration) error {
	var err error
	if ttl <= 0 {
		err = r.c.Del(ctx, r.key("session", session)).Err()
	} else {
		err = r.c.Set(ctx, r.key("session", session), state, ttl).Err()
	}
	if err != nil {
		return r.err("put session", err)
	}
	return nil
}

func (r *Redis) Session(ctx context.Context, session string) ([]byte, error) {
	b, err := r.c.Get(ctx, r.key("session", session)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, r.err("session", err)
	}
	return b, nil
}

func (r *Redis) Events() mcp.EventStore { return r.events }

// Publish is Redis' PUBLISH: every replica subscribed now gets msg once;
// one not subscribed (its Redis connection down) misses it.
func (r *Redis) Publish(ctx context.Context, topic string, msg []byte) error {
	if err := r.c.Publish(ctx, r.key("topic", topic), msg).Err(); err != nil {
		return r.err("publish", err)
	}
	return nil
}

// Subscribe returns once Redis confirmed the subscription. Its goroutine
// reads the messages until ctx ends or the store closes; when the
// connection breaks, go-redis subscribes again on a new one, what was
// published in between is missed, and fn(nil) says so once Redis
// confirmed the new subscription.
func (r *Redis) Subscribe(ctx context.Context, topic string, fn func(msg []byte)) error {
	ps := r.c.Subscribe(ctx, r.key("topic", topic))
	confirmed := false
	for !confirmed {
		m, err := ps.Receive(ctx)
		if err != nil {
			ps.Close()
			return r.err("subscribe", err)
		}
		_, confirmed = m.(*redis.Subscription)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		ps.Close()
		return r.err("subscribe", redis.ErrClosed)
	}
	r.subs[ps] = struct{}{}
	r.wg.Add(1)
	r.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { r.unsubscribe(ps) })
	go func() {
		defer r.wg.Done()
		defer stop()
		r.receive(ctx, ps, fn)
	}()
	return nil
}

// pingEvery is how long a subscription waits on a quiet connection before
// it checks that the connection is still there.
const pingEvery = 30 * time.Second

// receive hands ps's messages to fn until ctx ends or ps is closed. A
// broken connection is retried after a pause that doubles to 2 s.
func (r *Redis) receive(ctx context.Context, ps *redis.PubSub, fn func([]byte)) {
	pause := 50 * time.Millisecond
	for {
		m, err := ps.ReceiveTimeout(ctx, pingEvery)
		if ctx.Err() != nil || r.isGone(ps) {
			return
		}
		var ne net.Error
		switch {
		case err == nil:
			pause = 50 * time.Millisecond
			switch m := m.(type) {
			case *redis.Message:
				fn([]byte(m.Payload))
			case *redis.Subscription:
				// The first confirmation was Subscribe's: this one is
				// of a connection made again.
				fn(nil)
			}
		case errors.As(err, &ne) && ne.Timeout():
			_ = ps.Ping(ctx) // a dead connection fails, and is replaced
		default:
			t := time.NewTimer(pause)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			pause = min(2*pause, 2*time.Second)
		}
	}
}

func (r *Redis) unsubscribe(ps *redis.PubSub) {
	r.mu.Lock()
	_, ok := r.subs[ps]
	delete(r.subs, ps)
	r.mu.Unlock()
	if ok {
		ps.Close()
	}
}

func (r *Redis) isGone(ps *redis.PubSub) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.subs[ps]
	return !ok
}

// takeScript is the token bucket, whole in Redis: the time is Redis' own
// (TIME, in microseconds), so replicas' clocks do not matter, and a take
// is atomic however many replicas take at once. A bucket expires once it
// would be full again; a missing bucket is a full one. It returns whether
// a token was taken and, if not, the microseconds until one is back (-1:
// never, a rate of zero).
var takeScript = redis.NewScript(`
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(b[1]), tonumber(b[2])
if tokens == nil or at == nil then
  tokens, at = burst, now
end
if now > at then
  tokens = math.min(burst, tokens + (now - at) / 1000000 * rate)
  at = now
end
local ok, wait = 0, 0
if tokens >= 1 then
  tokens = tokens - 1
  ok = 1
elseif rate <= 0 then
  wait = -1
else
  wait = math.ceil((1 - tokens) / rate * 1000000)
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', string.format('%d', at))
if rate > 0 then
  redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
end
return {ok, wait}
`)

func (r *Redis) Take(ctx context.Context, key string, rate float64, burst int) (bool, time.Duration, error) {
	res, err := takeScript.Run(ctx, r.c, []string{r.key("bucket", key)}, strconv.FormatFloat(rate, 'g', -1, 64), burst).Int64Slice()
	if err != nil {
		return false, 0, r.err("take", err)
	}
	if len(res) != 2 {
		return false, 0, r.err("take", fmt.Errorf("script answered %d values, want 2", len(res)))
	}
	switch {
	case res[0] == 1:
		return true, 0, nil
	case res[1] < 0:
		return false, time.Duration(math.MaxInt64), nil
	default:
		return false, time.Duration(res[1]) * time.Microsecond, nil
	}
}

// Close ends the subscriptions, waits for their goroutines, and closes
// the connections.
func (r *Redis) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	subs := r.subs
	r.subs = map[*redis.PubSub]struct{}{}
	r.mu.Unlock()
	for ps := range subs {
		ps.Close()
	}
	r.wg.Wait()
	return r.c.Close()
}

// LogTo sends go-redis' own lines (a dial that failed, a connection
// replaced: addresses, never passwords) to l at debug level, nil
// discarding them; without LogTo they go to stderr, a line a failed dial.
// go-redis has one logger a process: the last LogTo wins.
func LogTo(l *slog.Logger) {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	redis.SetLogger(debugLog{l})
}

type debugLog struct{ l *slog.Logger }

func (d debugLog) Printf(ctx context.Context, format string, v ...any) {
	d.l.DebugContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}

var _ Store = (*Redis)(nil)
