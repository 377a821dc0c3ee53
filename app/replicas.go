package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// What a replica does with the store it shares with others (DESIGN.md,
// "The shared store on Redis"): readiness says whether it answers, and a
// reload that changes what is served is published, so that replicas whose
// files did not show the change read theirs again.

// ConfigTopic is the store topic reloads are published on.
const ConfigTopic = "config"

// storeWait bounds a store call made for readiness, a scrape or a
// publish: a store that takes longer is down for them.
const storeWait = time.Second

// fanout is the app's part in the config-change fan-out. Only the
// watcher's goroutine touches caused; the subscription's sets pending.
type fanout struct {
	id     string // this replica's, in its messages
	reread chan struct{}
	// pending: a message asked for a reading not yet begun. caused: the
	// reading under way was asked for by one, so its reload is not
	// published again.
	pending atomic.Bool
	caused  bool
	stop    context.CancelFunc
}

// configMessage is what a reload publishes: which replica reloaded. It
// carries nothing of the configs, not even a digest: a digest of values
// that may be short secrets could be guessed from, by whoever reads the
// Redis. So every other replica reads its configs again, which changes
// nothing where its watcher was first.
type configMessage struct {
	Replica string `json:"replica"`
}

// startFanout subscribes to the reloads of other replicas, when the app
// reloads and has a store. A store that cannot subscribe fails Start.
func (a *App) startFanout() error {
	st := a.opts.Store
	if st == nil || a.opts.Reload == nil {
		return nil
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	f := &a.fan
	f.id = hex.EncodeToString(id[:])
	f.reread = make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(a.life)
	f.stop = cancel
	if err := st.Subscribe(ctx, ConfigTopic, a.onConfigMessage); err != nil {
		cancel()
		return fmt.Errorf("config fan-out: %w", err)
	}
	return nil
}

func (a *App) endFanout() {
	if a.fan.stop != nil {
		a.fan.stop()
	}
}

// onConfigMessage reads the configs again when another replica reloaded,
// or when the store says messages may have been lost (nil).
func (a *App) onConfigMessage(b []byte) {
	var m configMessage
	f := &a.fan
	if b != nil && (json.Unmarshal(b, &m) != nil || m.Replica == f.id) {
		return
	}
	f.pending.Store(true)
	select {
	case f.reread <- struct{}{}:
	default: // a reading is asked for already
	}
}

// rereadCause notes, as a reading begins, whether a message asked for it.
func (a *App) rereadCause() {
	if a.fan.reread != nil {
		a.fan.caused = a.fan.pending.Swap(false)
	}
}

// publishReload tells the other replicas that this one reloaded, unless
// a message of theirs caused the reload.
func (a *App) publishReload() {
	f := &a.fan
	if f.reread == nil || f.caused {
		return
	}
	msg, _ := json.Marshal(configMessage{Replica: f.id})
	ctx, cancel := context.WithTimeout(a.life, storeWait)
	defer cancel()
	if err := a.opts.Store.Publish(ctx, ConfigTopic, msg); err != nil && a.opts.Logger != nil {
		a.opts.Logger.Warn("other replicas not told of the reload", "error", err)
	}
}

// pinger is a store that can say whether it answers (store.Redis).
type pinger interface {
	Ping(ctx context.Context) error
}

// storeDown is why the store does not answer now, or nil: for /readyz and
// the metrics. A store that cannot be asked (Memory) is up.
func (a *App) storeDown(ctx context.Context) error {
	p, ok := a.opts.Store.(pinger)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, storeWait)
	defer cancel()
	return p.Ping(ctx)
}

// storeReady adds "store" to a readiness that waits for one.
func (a *App) storeReady(r *http.Request, body *readiness) {
	if err := a.storeDown(r.Context()); err != nil {
		body.NotReady = append(body.NotReady, "store")
	}
}

var descStoreUp = prometheus.NewDesc("switchboard_store_up",
	"Whether the shared store (--store) answered a PING at this scrape: 1 or 0. Absent without a store.", nil, nil)

// collectStore reports the store's health, when the app has one.
func (a *App) collectStore(ch chan<- prometheus.Metric) {
	if a.opts.Store == nil {
		return
	}
	up := 1.0
	if a.storeDown(context.Background()) != nil {
		up = 0
	}
	ch <- prometheus.MustNewConstMetric(descStoreUp, prometheus.GaugeValue, up)
}
