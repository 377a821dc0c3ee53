package secretcmd

import (
	"testing"

	"go.uber.org/goleak"
)

// Run reads a helper's pipes in goroutines of its own; none may outlive it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
