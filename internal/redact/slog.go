package redact

import (
	"context"
	"fmt"
	"log/slog"
)

// Handler returns a slog.Handler that masks secrets in every record's
// message and attributes, groups included, before h sees them. A value
// of another kind than a string (an error, a struct) is masked in its
// printed form, and passed on as that masked text only when it held a
// secret, so a log without secrets looks exactly as h would write it.
func (r *Redactor) Handler(h slog.Handler) slog.Handler {
	return &handler{r: r, h: h}
}

type handler struct {
	r *Redactor
	h slog.Handler
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h *handler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.h.Handle(ctx, out)
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(as))
	for i, a := range as {
		masked[i] = h.attr(a)
	}
	return &handler{r: h.r, h: h.h.WithAttrs(masked)}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{r: h.r, h: h.h.WithGroup(name)}
}

func (h *handler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		v = slog.StringValue(h.r.String(v.String()))
	case slog.KindGroup:
		group := v.Group()
		masked := make([]slog.Attr, len(group))
		for i, g := range group {
			masked[i] = h.attr(g)
		}
		v = slog.GroupValue(masked...)
	case slog.KindAny:
		var text string
		if err, ok := v.Any().(error); ok {
			text = err.Error()
		} else {
			text = fmt.Sprintf("%+v", v.Any())
		}
		if masked := h.r.String(text); masked != text {
			v = slog.StringValue(masked)
		}
	}
	return slog.Attr{Key: h.r.String(a.Key), Value: v}
}
