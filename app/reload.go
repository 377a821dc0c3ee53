package app

import (
	"context"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/watch"
)

// EventConfigFixed: a config file the last reading could not read reads
// now, or is gone. Without it a fix that changes no server (the file
// saved whole again) would say nothing, and the error would seem to stand.
const EventConfigFixed watch.EventType = "config-fixed"

// ConfigEvent is one thing the reloading did: a watcher's event
// (watch.EventReload, watch.EventConfigError) or EventConfigFixed.
type ConfigEvent struct {
	watch.Event
	// Before and After are the configs a reload went from and to, so that
	// a changed server that runs in neither, or only in one, is told from
	// one that restarted.
	Before, After []config.ServerConfig
	// File is the file an EventConfigFixed is about; Gone says it no
	// longer exists.
	File string
	Gone bool
}

// reload is the watcher's reading: Options.Reload, and what the app keeps
// of it. Only a source's error holds the last good config (Loaded.
// SourceErrors); a reading without one is what the next reload applies.
func (a *App) reload(ctx context.Context) (*watch.Loaded, error) {
	a.rereadCause()
	l, err := a.opts.Reload(ctx)
	if err != nil {
		return nil, err
	}
	a.noteFixed(l)
	errs := l.SourceErrors()
	if len(errs) == 0 {
		a.latest = l.Servers
	}
	return &watch.Loaded{Servers: l.Servers, Files: l.Files, Errors: errs}, nil
}

// notify hands on a watcher's event, with the configs of a reload.
func (a *App) notify(e watch.Event) {
	ce := ConfigEvent{Event: e}
	if e.Type == watch.EventReload {
		ce.Before, ce.After = a.running, a.latest
		a.running = a.latest
		a.publishReload()
	}
	a.config(ce)
}

func (a *App) config(e ConfigEvent) {
	if a.opts.ConfigEvent != nil {
		a.emit(func() { a.opts.ConfigEvent(e) })
	}
}

// noteFixed remembers which files l could not read, and says which of
// those the last reading could not read l could.
func (a *App) noteFixed(l *Loaded) {
	broken := brokenFiles(l)
	found := map[string]bool{}
	if l.Discovery != nil {
		for _, src := range l.Discovery.Sources {
			if src.Found {
				found[src.Path] = true
			}
		}
	}
	var fixed []string
	for path := range a.broken {
		if !broken[path] {
			fixed = append(fixed, path)
		}
	}
	slices.Sort(fixed)
	now := time.Now()
	for _, path := range fixed {
		a.config(ConfigEvent{Event: watch.Event{Time: now, Type: EventConfigFixed}, File: path, Gone: !found[path]})
	}
	a.broken = broken
}

// brokenFiles are the sources l could not read.
func brokenFiles(l *Loaded) map[string]bool {
	broken := map[string]bool{}
	if l.Discovery == nil {
		return broken
	}
	for _, src := range l.Discovery.Sources {
		if src.Error != "" {
			broken[src.Path] = true
		}
	}
	return broken
}
