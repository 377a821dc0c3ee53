package cli

import (
	"fmt"
	"sync"

	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/termsafe"
)

// progress shows servers settling while a command waits for them, one line
// each, on a terminal only (DESIGN.md F47). Piped output gets nothing.
type progress struct {
	sub  *host.Subscription
	done chan struct{}
	once sync.Once
}

func (ios IO) progress(h *host.Host) *progress {
	p := &progress{done: make(chan struct{})}
	if !ios.ErrTTY {
		close(p.done)
		return p
	}
	p.sub = h.Subscribe()
	colorOn := ios.color(true)
	go func() {
		defer close(p.done)
		for e := range p.sub.C {
			if e.Type != host.EventState {
				continue
			}
			line := fmt.Sprintf("  %-20s %s", termsafe.Line(e.Server), paint(colorOn, stateColor(e.State), string(e.State)))
			if e.Error != "" {
				line += "  " + paint(colorOn, ansiDim, oneLine(e.Error))
			}
			fmt.Fprintln(ios.Err, line)
		}
	}()
	return p
}

// stop ends the display and waits for its goroutine.
func (p *progress) stop() {
	p.once.Do(func() {
		if p.sub != nil {
			p.sub.Close()
		}
	})
	<-p.done
}
