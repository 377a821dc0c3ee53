package daemon

import "time"

// SetStall sets, for a test, how long one write to an attached client
// may take, how many of a session's requests may be unanswered before
// the daemon reads no more of them, and a function told when a session's
// reader so waits. The returned function puts them back; call it once
// the daemons using them are gone.
func SetStall(write time.Duration, pending int, onHeld func(pending int)) func() {
	w, p, h := writeTimeout, maxPending, held
	writeTimeout, maxPending, held = write, pending, onHeld
	return func() { writeTimeout, maxPending, held = w, p, h }
}
