package app

import "time"

// SetParkedGrace sets parkedGrace for a test, until the returned restore.
func SetParkedGrace(d time.Duration) (restore func()) {
	old := parkedGrace
	parkedGrace = d
	return func() { parkedGrace = old }
}
