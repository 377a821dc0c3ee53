// Package otlptest is an OTLP/HTTP trace receiver for tests: what an
// exporter sends, decoded with OTLP's own protobuf types, on loopback.
package otlptest

import (
	"io"
	"net/http"
	"sync"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Receiver keeps the spans exported to it at /v1/traces.
type Receiver struct {
	// CountOnly keeps no span, only their number (Count): a benchmark's
	// receiver, whose memory must not grow with the calls made.
	CountOnly bool

	mu    sync.Mutex
	spans []*tracepb.Span
	count int
	more  chan struct{} // closed and replaced when spans arrive
}

func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req coltrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	if r.URL.Path != "/v1/traces" || err != nil {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			rc.count += len(ss.GetSpans())
			if !rc.CountOnly {
				rc.spans = append(rc.spans, ss.GetSpans()...)
			}
		}
	}
	if rc.more != nil {
		close(rc.more)
		rc.more = nil
	}
	rc.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// Count is how many spans have arrived so far.
func (rc *Receiver) Count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.count
}

// Spans are the spans received so far.
func (rc *Receiver) Spans() []*tracepb.Span {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]*tracepb.Span(nil), rc.spans...)
}

// Await is the span named name once it has arrived, nil if it has not
// within bound.
func (rc *Receiver) Await(name string, bound time.Duration) *tracepb.Span {
	timeout := time.After(bound)
	for {
		rc.mu.Lock()
		for _, s := range rc.spans {
			if s.GetName() == name {
				rc.mu.Unlock()
				return s
			}
		}
		if rc.more == nil {
			rc.more = make(chan struct{})
		}
		more := rc.more
		rc.mu.Unlock()
		select {
		case <-more:
		case <-timeout:
			return nil
		}
	}
}
