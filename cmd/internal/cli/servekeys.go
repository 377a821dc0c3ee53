package cli

import "github.com/switchboard-mcp/switchboard/gateway"

// sessionKeys are --session-key-file's keys (DESIGN.md F64), nil without
// it. The file is read once, at start: a replica whose file is bad does
// not start, rather than serve sessions no other replica can read.
func (o *serveOptions) sessionKeys() (*gateway.SessionKeys, error) {
	if o.KeyFile == "" {
		return nil, nil
	}
	if o.HTTP == "" {
		return nil, usagef("--session-key-file is for --http: over stdio there is one client and no session to share")
	}
	keys, err := gateway.LoadSessionKeys(o.KeyFile)
	if err != nil {
		return nil, usagef("--session-key-file: %v", err)
	}
	return keys, nil
}
