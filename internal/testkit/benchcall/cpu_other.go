//go:build !unix

package benchcall

import "time"

// CPUMeasured says CPUTime measures nothing here.
const CPUMeasured = false

// CPUTime is zero here.
func CPUTime() time.Duration { return 0 }
