package cli

import (
	"fmt"
	"net/url"

	"github.com/spf13/pflag"

	"github.com/switchboard-mcp/switchboard/gateway/store"
)

// storeFlags are serve's shared-store flag (DESIGN.md, "The shared store
// on Redis").
type storeFlags struct {
	Store string
	// store is what openStore opened, nil without --store.
	store store.Store
}

func (o *storeFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&o.Store, "store", "", "with --http, share sessions' revocations, state and events, config changes and rate limits with the other replicas in the Redis at this `url` (redis://HOST:PORT/DB, rediss:// for TLS, ?prefix=KEYS; or $SWITCHBOARD_STORE); serve refuses to start when it does not answer")
}

// openStore opens --store (or, with --http, $SWITCHBOARD_STORE): nil
// without either.
// A Redis that does not answer is the error: a replica does not start on
// state of its own beside replicas that share theirs.
func (o *serveOptions) openStore() (store.Store, error) {
	raw := o.storeFlags.Store
	switch {
	case raw != "" && o.HTTP == "":
		return nil, usagef("--store is for replicas of serve --http: give --http ADDR")
	case raw != "":
		if u, err := url.Parse(raw); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				fmt.Fprintln(o.IO.Err, "switchboard: warning: --store's password can be read by every user of this machine in the process list; use $SWITCHBOARD_STORE")
			}
		}
	case o.HTTP != "":
		// The environment's store is for serve --http alone: a serve
		// over stdio in the same environment serves as always.
		raw, _ = o.IO.LookupEnv("SWITCHBOARD_STORE")
	}
	if raw == "" {
		return nil, nil
	}
	store.LogTo(o.Logger())
	st, err := store.Open(raw)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	o.storeFlags.store = st
	return st, nil
}
