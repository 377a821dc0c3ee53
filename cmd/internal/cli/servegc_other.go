//go:build !linux

package cli

// memoryLimitFor is limit: the machine's memory is read on Linux only.
func memoryLimitFor(limit int64) (int64, string) { return limit, "the default" }
