//go:build !unix

package toolsearch

import "time"

// cpuTime is unknown here: the benchmarks report wall-clock time only.
func cpuTime() time.Duration { return 0 }
