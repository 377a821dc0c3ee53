package host

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/host/internal/pins"
)

// PinStore is a place the tool pins are kept other than the pin file: a
// store that the replicas of one gateway share (DESIGN.md F66, "Pins
// shared by replicas"), so that a tool one replica withholds every
// replica withholds, and one approval releases it on all. The pins are
// one versioned document; the host writes it only on the version it read
// (a compare-and-set), so replicas recording at once lose nothing.
type PinStore interface {
	// Name names the store in errors and logs, without credentials.
	Name() string
	// Load is the document and its version; nil data when none is kept.
	Load(ctx context.Context) (data []byte, version int64, err error)
	// Swap writes data if the document's version is still version (0:
	// none kept), reporting false when another wrote first. A write
	// tells every Watch of the store's, on every replica.
	Swap(ctx context.Context, version int64, data []byte) (bool, error)
	// Watch calls fn after each write of the pins by anyone, and when
	// writes may have been missed (a connection made again), until ctx
	// ends; it returns once watching. fn runs on a goroutine the store
	// owns, one call at a time.
	Watch(ctx context.Context, fn func()) error
}

// pinWait bounds one read or write of pins kept in a store: a store that
// does not answer is an error (logged, pinned tools withheld), not a host
// that hangs.
const pinWait = 10 * time.Second

// read is the book as kept now: the file's or the store's.
func (p *pinState) read(ctx context.Context) (*pins.Book, error) {
	if p.shared == nil {
		return pins.Read(p.path)
	}
	ctx, cancel := context.WithTimeout(ctx, pinWait)
	defer cancel()
	b, _, err := pins.ReadShared(ctx, p.shared)
	return b, err
}

// update changes the book where it is kept (pins.Update, pins.SharedUpdate).
func (p *pinState) update(ctx context.Context, fn func(*pins.Book) (bool, error)) error {
	if p.shared == nil {
		return pins.Update(p.path, fn)
	}
	ctx, cancel := context.WithTimeout(ctx, pinWait)
	defer cancel()
	return pins.SharedUpdate(ctx, p.shared, fn)
}

// watchSharedPins reads the pins again whenever the store says they were
// written (an approval on any replica, or from a shell; another replica's
// listing) or may have been, until the host closes. It is called under
// h.mu (Start): subscribing, a round trip to the store, and the reading
// that reloadPins does under h.mu, are the tracked goroutine's.
func (h *Host) watchSharedPins() {
	h.goTracked(func() {
		err := h.pins.shared.Watch(h.life, h.reloadPins)
		if err != nil {
			if h.life.Err() == nil {
				h.log.Warn("approvals made on other replicas are seen at the next start", "store", h.pins.shared.Name(), "error", err.Error())
			}
			return
		}
		// Read once more: a write between New's read and the watch is seen.
		h.reloadPins()
	})
}
