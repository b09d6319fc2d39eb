package server

import (
	"net/http"
	"net/http/pprof"
	"strconv"
	"time"

	"piweb/internal/metrics"
)

// requestMetrics counts the requests by route (the pattern that served
// them, a bounded set) and status, and their durations by route.
type requestMetrics struct {
	total    *metrics.CounterVec
	duration *metrics.HistogramVec
}

func newRequestMetrics(reg *metrics.Registry) *requestMetrics {
	if reg == nil {
		return nil
	}
	return &requestMetrics{
		total: reg.CounterVec("piweb_http_requests_total",
			"HTTP requests answered, by route pattern and status.", "route", "status"),
		duration: reg.HistogramVec("piweb_http_request_duration_seconds",
			"Time to answer an HTTP request (an event stream counts until it ends), by route pattern.",
			metrics.DurationBuckets, "route"),
	}
}

// observe counts one answered request; route is the pattern that served
// it ("" when none did: a request the checks refused).
func (m *requestMetrics) observe(route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = "refused"
	}
	m.total.Add(1, route, strconv.Itoa(status))
	m.duration.Observe(d.Seconds(), route)
}

// debugRoutes adds GET /metrics and the runtime's profiles under
// /debug/pprof/ when the server has a metrics registry. Like every route
// they are behind the server's checks (guard): the owner only.
func (s *Server) debugRoutes(mux *http.ServeMux) {
	if s.opts.Metrics == nil {
		return
	}
	mux.Handle("GET /metrics", s.opts.Metrics.Handler())
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
}
