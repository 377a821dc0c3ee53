package store_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every subscription's goroutine ends with its context or the store's
// Close. go-redis' pool, after a failed dial, retries in a goroutine of
// its own that sleeps a second between tries and ends at its next try
// once the client is closed: that one may outlive a test by a second.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/redis/go-redis/v9/internal/pool.(*ConnPool).tryDial"))
}
