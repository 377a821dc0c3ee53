package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/switchboard-mcp/switchboard/app"
)

// opsFlags are serve's operations flags: the drain and the audit trail
// (DESIGN.md, "Operations").
type opsFlags struct {
	DrainTimeout time.Duration
	AuditLog     string
	AuditArgs    bool
	AuditMaxSize string
}

func (o *opsFlags) add(fl *pflag.FlagSet) {
	fl.DurationVar(&o.DrainTimeout, "drain-timeout", app.DefaultDrainTimeout, "with --http, on SIGTERM or SIGINT let calls in flight finish for this `long` (a second signal stops at once)")
	fl.StringVar(&o.AuditLog, "audit-log", "", "append a JSON line for every tool call, prompt get and resource read to this `file` (mode 0600; SIGHUP reopens it)")
	fl.BoolVar(&o.AuditArgs, "audit-args", false, "write the arguments' values in the audit log, secrets masked (without it: a digest)")
	fl.StringVar(&o.AuditMaxSize, "audit-max-size", "", "rotate the audit log to FILE.1 past this `size` (bytes, or with K, M, G); unset: never (logrotate, with SIGHUP)")
}

// audit is the app's audit option the flags ask for, nil for none.
func (o *opsFlags) audit() (*app.AuditOptions, error) {
	if o.AuditLog == "" {
		if o.AuditArgs || o.AuditMaxSize != "" {
			return nil, usagef("--audit-args and --audit-max-size need --audit-log")
		}
		return nil, nil
	}
	max, err := parseSize(o.AuditMaxSize)
	if err != nil {
		return nil, usagef("--audit-max-size %s: %v", o.AuditMaxSize, err)
	}
	return &app.AuditOptions{File: o.AuditLog, Args: o.AuditArgs, MaxSize: max}, nil
}

// parseSize reads 1048576, 1024K, 10M or 1G; empty is zero.
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	mult := int64(1)
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want a positive number of bytes, like 10M")
	}
	return n * mult, nil
}

// reopenOnHangup reopens the audit log on each SIGHUP, for logrotate,
// until the returned function is called.
func (o *serveOptions) reopenOnHangup(a *app.App) func() {
	if o.AuditLog == "" {
		return func() {}
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		for {
			select {
			case <-done:
				return
			case <-hup:
				if err := a.ReopenAudit(); err != nil {
					fmt.Fprintf(o.IO.Err, "switchboard: %v\n", oneLine(err.Error()))
				}
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
		<-ended
	}
}

// drain is serve --http's end after the first interrupt: calls in flight
// finish within --drain-timeout, unless a later signal comes first;
// then ServeHTTP (errc) ends, and the caller closes the servers. A
// drain cut short ends the calls still in flight at once, and is an
// error (exit 1).
func (o *serveOptions) drain(ctx context.Context, a *app.App, stopServing func(), errc <-chan error) error {
	timeout := o.DrainTimeout
	if timeout <= 0 {
		timeout = app.DefaultDrainTimeout
	}
	a.BeginDrain() // before the line says so: a reader of it may ask /readyz at once
	fmt.Fprintf(o.IO.Err, "switchboard: draining: calls in flight have %s to finish; signal again to stop now\n", timeout)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	later := laterSignals(ctx)
	go func() {
		select {
		case <-later:
			cancel()
		case <-dctx.Done():
		}
	}()
	err := a.Drain(dctx)
	if err != nil {
		a.Close() // the calls still in flight end now, with the servers
	}
	stopServing()
	<-errc
	if err != nil {
		why := "a second signal"
		if dctx.Err() == context.DeadlineExceeded {
			why = "--drain-timeout " + timeout.String()
		}
		return fmt.Errorf("serve: drain cut short by %s: the calls still in flight were ended", why)
	}
	return nil
}
