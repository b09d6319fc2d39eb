package server

import (
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
