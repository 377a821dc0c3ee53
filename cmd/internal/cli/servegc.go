package cli

import (
	"fmt"
	"os"
	"runtime/debug"
)

// serve --http is a shared gateway: each call through it makes a few
// hundred KB of garbage, nearly all of it go-sdk's JSON decoders, and at
// Go's default GOGC (100) the collector took a third of its CPU
// (docs/PERFORMANCE.md, "serve's garbage collector"). Its live heap is
// tens of MB, so a heap allowed to grow to five times that costs little
// and takes a third off the CPU per call. A user's GOGC or GOMEMLIMIT
// wins, as for any Go program.
const (
	// serveGCPercent is serve --http's GOGC when the user set none.
	serveGCPercent = 400
	// serveMemoryLimit is its soft memory limit when the user set none
	// (GOMEMLIMIT): past it the collector runs as often as it must to
	// stay under, so a large live heap is not let grow five times. It is
	// lowered to what the machine or the cgroup can spare
	// (memoryLimitFor).
	serveMemoryLimit = 1 << 30
	// serveMemoryFloor is the least limit the tuning sets: below it (a
	// small container) the limit would sit near what serve needs to run,
	// and the collector would run without end to stay under it, so Go's
	// defaults are left as they are.
	serveMemoryFloor = 256 << 20
)

// tuneServeGC sets serve --http's collector, unless the user's
// environment sets it: GOGC (any value, "off" too) leaves both alone;
// GOMEMLIMIT alone keeps the user's limit. It answers what it did, in
// one line for the operator ("" when it left the collector alone).
func tuneServeGC() string {
	if _, set := os.LookupEnv("GOGC"); set {
		return ""
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		debug.SetGCPercent(serveGCPercent)
		return fmt.Sprintf("collector: GOGC=%d, memory limit the user's (GOMEMLIMIT); GOGC=100 is Go's default", serveGCPercent)
	}
	limit, why := memoryLimitFor(serveMemoryLimit)
	if limit < serveMemoryFloor {
		return fmt.Sprintf("collector: Go's defaults: %s leaves less than %d MiB to spare", why, serveMemoryFloor>>20)
	}
	debug.SetGCPercent(serveGCPercent)
	debug.SetMemoryLimit(limit)
	return fmt.Sprintf("collector: GOGC=%d, soft memory limit %d MiB (%s); GOGC or GOMEMLIMIT set by you win", serveGCPercent, limit>>20, why)
}
