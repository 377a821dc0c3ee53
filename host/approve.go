package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host/internal/pins"
)

// PinFileName is the pin file's name in switchboard's state directory
// (Options.PinFile).
const PinFileName = pins.FileName

// PinApproval is what ApproveTools did for one server.
type PinApproval struct {
	Server string `json:"server"`
	// Approved are the tools whose last seen definition is now the one
	// remembered, and the removed tools now forgotten, sorted.
	Approved []string `json:"approved"`
	// Unchanged are tools named that had nothing to approve.
	Unchanged []string `json:"unchanged,omitempty"`
}

// PinToolError is a tool ApproveTools was asked about that is not
// remembered for the server, with the names it may have meant.
type PinToolError struct {
	Server, Tool string
	Near         []string
}

func (e *PinToolError) Error() string {
	msg := fmt.Sprintf("server %q has no tool %q remembered", e.Server, e.Tool)
	if len(e.Near) > 0 {
		quoted := make([]string, len(e.Near))
		for i, n := range e.Near {
			quoted[i] = fmt.Sprintf("%q", n)
		}
		msg += "; did you mean " + strings.Join(quoted, " or ") + "?"
	}
	return msg
}

// ApproveTools accepts, in the pin file of opts (or its Pins, which every
// replica sharing them watches), the definitions last seen
// of cfg's tools (DESIGN.md F66): those named, or with none named every
// one that is changed, re-added or removed. A host that has the file,
// this process's or another's (a daemon's, a gateway's), reads it again
// and offers an approved tool at once. It needs no connection: what a
// host last listed is in the file. opts.ProjectDir must be the host's,
// as it is part of a project server's identity.
func ApproveTools(opts *Options, cfg config.ServerConfig, tools []string) (PinApproval, error) {
	out := PinApproval{Server: cfg.Name, Approved: []string{}}
	if opts == nil || (opts.PinFile == "" && opts.Pins == nil) {
		return out, errors.New("no pin file (set HOME or XDG_STATE_HOME)")
	}
	key := pinKey(&cfg, opts.ProjectDir)
	p := &pinState{path: opts.PinFile, shared: opts.Pins}
	err := p.update(context.Background(), func(b *pins.Book) (bool, error) {
		names := tools
		if len(names) == 0 {
			names = b.Pending(key)
		}
		known := b.Known(key)
		for _, t := range names {
			if !slices.Contains(known, t) {
				return false, &PinToolError{Server: cfg.Name, Tool: t, Near: NearNames(known, t)}
			}
		}
		out.Approved, out.Unchanged = []string{}, nil
		for _, t := range names {
			ok, err := b.Approve(key, t)
			if err != nil {
				return false, err
			}
			if ok {
				out.Approved = append(out.Approved, t)
			} else {
				out.Unchanged = append(out.Unchanged, t)
			}
		}
		slices.Sort(out.Approved)
		return len(out.Approved) > 0, nil
	})
	return out, err
}

// CheckPinFile reads the pin file at path as a host would, for a command
// line that tells its person at once why pinned tools are withheld: nil
// for a readable file or none, else one line naming the file and why.
func CheckPinFile(path string) error {
	if path == "" {
		return nil
	}
	_, err := pins.Read(path)
	return err
}
