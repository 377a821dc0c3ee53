package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// laterSignalsKey is the context key of the channel on which Main hands
// on the interrupts after the first: serve --http drains on the first
// and stops at once on the next.
type laterSignalsKey struct{}

// interrupts is signal.NotifyContext for SIGINT and SIGTERM, whose
// context also carries the later signals (laterSignals).
func interrupts() (context.Context, func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	later := make(chan os.Signal, 1)
	ctx, cancel := context.WithCancel(context.Background())
	ctx = context.WithValue(ctx, laterSignalsKey{}, (<-chan os.Signal)(later))
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		first := true
		for {
			select {
			case <-done:
				return
			case s := <-sigs:
				if first {
					first = false
					cancel()
					continue
				}
				select {
				case later <- s:
				default: // one is waiting already: that is enough
				}
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		<-ended
		cancel()
	}
}

// laterSignals is the channel of the interrupts after the first; nil
// (never) when ctx is not Main's.
func laterSignals(ctx context.Context) <-chan os.Signal {
	c, _ := ctx.Value(laterSignalsKey{}).(<-chan os.Signal)
	return c
}
