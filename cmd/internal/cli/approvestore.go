package cli

import (
	"fmt"
	"net/url"

	"github.com/switchboard-mcp/switchboard/app"
	"github.com/switchboard-mcp/switchboard/gateway/store"
	"github.com/switchboard-mcp/switchboard/host"
)

// approveStore has approve accept tools in the store that replicas of
// serve --http share (DESIGN.md F66, "Pins shared by replicas"), not in
// this machine's pin file: the --store flag, else $SWITCHBOARD_STORE, the
// variable the replicas read, so a person approves where the gateway
// looks. It returns the store's closer, nil without one.
func (o *approveOptions) approveStore(opts *host.Options) (func(), error) {
	raw := o.Store
	if raw != "" {
		if u, err := url.Parse(raw); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				fmt.Fprintln(o.IO.Err, "switchboard: warning: --store's password can be read by every user of this machine in the process list; use $SWITCHBOARD_STORE")
			}
		}
	} else {
		raw, _ = o.IO.LookupEnv("SWITCHBOARD_STORE")
	}
	if raw == "" {
		return nil, nil
	}
	if o.Logger != nil {
		store.LogTo(o.Logger())
	}
	st, err := store.Open(raw)
	if err != nil {
		return nil, fmt.Errorf("tools approve: %w", err)
	}
	opts.Pins = app.PinStore(st)
	return func() { st.Close() }, nil
}
