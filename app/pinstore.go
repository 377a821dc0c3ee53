package app

import (
	"context"
	"fmt"

	"github.com/switchboard-mcp/switchboard/gateway/store"
	"github.com/switchboard-mcp/switchboard/host"
)

// PinsTopic is the store's topic on which a write of the tool pins is
// announced, so that every replica reads them again (DESIGN.md F66).
const PinsTopic = "pins"

// pinsDoc is the store's document that holds the tool pins.
const pinsDoc = "pins"

// PinStore keeps the host's tool pins in st, for every replica and every
// `tools approve --store` sharing it (host.Options.Pins): one document,
// written by compare-and-set, each write announced on PinsTopic. Start
// gives it to the host when Options.Store is set and the host's options
// name no other.
func PinStore(st store.Store) host.PinStore { return storePins{st} }

type storePins struct{ st store.Store }

// Name is the store's url without its password (store.Redis' String), or
// what it is.
func (s storePins) Name() string {
	if n, ok := s.st.(fmt.Stringer); ok {
		return "the store " + n.String()
	}
	return "the shared store"
}

func (s storePins) Load(ctx context.Context) ([]byte, int64, error) {
	return s.st.Doc(ctx, pinsDoc)
}

// Swap writes the pins and, once written, tells every replica. A write
// whose announcement is lost (the store down just after) is read by the
// replicas when their subscriptions resume (fn(nil)) or at the next write.
func (s storePins) Swap(ctx context.Context, version int64, data []byte) (bool, error) {
	ok, err := s.st.SwapDoc(ctx, pinsDoc, version, data)
	if !ok || err != nil {
		return ok, err
	}
	_ = s.st.Publish(ctx, PinsTopic, []byte("{}"))
	return true, nil
}

// Watch reads again on every message, and on nil: messages may have been
// lost.
func (s storePins) Watch(ctx context.Context, fn func()) error {
	return s.st.Subscribe(ctx, PinsTopic, func([]byte) { fn() })
}
