package cli

import (
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
)

// tuneServeGC sets serve --http's collector, unless the user's
// environment sets it: GOGC (any value, "off" too) leaves both alone;
// GOMEMLIMIT alone keeps the user's limit.
func tuneServeGC() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	debug.SetGCPercent(serveGCPercent)
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	debug.SetMemoryLimit(memoryLimitFor(serveMemoryLimit))
}
