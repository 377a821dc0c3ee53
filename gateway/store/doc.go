package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

type doc struct {
	data    []byte
	version int64
}

func (m *Memory) Doc(_ context.Context, key string) ([]byte, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.docs[key]
	if !ok {
		return nil, 0, nil
	}
	return append([]byte(nil), d.data...), d.version, nil
}

func (m *Memory) SwapDoc(_ context.Context, key string, version int64, data []byte) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.docs[key].version != version {
		return false, nil
	}
	m.docs[key] = doc{data: append([]byte(nil), data...), version: version + 1}
	return true, nil
}

// swapScript is SwapDoc's compare-and-set: a hash of the version ("v")
// and the data ("d"), written only while its version is the one the
// writer read, so two replicas that read one version cannot both write.
var swapScript = redis.NewScript(`
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[1], 'v', v + 1, 'd', ARGV[2])
return 1
`)

// Doc reads the version and the data at once (HMGET): one answer, so
// they belong together.
func (r *Redis) Doc(ctx context.Context, key string) ([]byte, int64, error) {
	vals, err := r.c.HMGet(ctx, r.key("doc", key), "v", "d").Result()
	if err != nil {
		return nil, 0, r.err("doc", err)
	}
	if len(vals) != 2 || vals[0] == nil {
		return nil, 0, nil
	}
	vs, ok1 := vals[0].(string)
	data, ok2 := vals[1].(string)
	v, err := strconv.ParseInt(vs, 10, 64)
	if !ok1 || !ok2 || err != nil {
		return nil, 0, r.err("doc", fmt.Errorf("document %q is not one of ours", key))
	}
	return []byte(data), v, nil
}

func (r *Redis) SwapDoc(ctx context.Context, key string, version int64, data []byte) (bool, error) {
	n, err := swapScript.Run(ctx, r.c, []string{r.key("doc", key)}, version, data).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return false, r.err("swap doc", err)
	}
	return n == 1, nil
}
