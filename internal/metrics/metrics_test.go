package metrics

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExposition: the text format of each kind, labels escaped and
// sorted, histogram buckets cumulative with +Inf, families in
// registration order.
func TestExposition(t *testing.T) {
	r := New()
	req := r.CounterVec("piweb_requests_total", "Requests by route and status.", "route", "status")
	dur := r.HistogramVec("piweb_request_seconds", "Request durations.", []float64{0.1, 1}, "route")
	r.GaugeFunc("piweb_streams", "Open streams.\nNow.", func() float64 { return 3 })
	req.Add(1, "GET /api/sessions", "200")
	req.Add(2, "GET /api/sessions", "200")
	req.Add(1, `a"b\c`, "500")
	dur.Observe(0.05, "x")
	dur.Observe(0.1, "x")
	dur.Observe(5, "x")
	want := `# HELP piweb_requests_total Requests by route and status.
# TYPE piweb_requests_total counter
piweb_requests_total{route="GET /api/sessions",status="200"} 3
piweb_requests_total{route="a\"b\\c",status="500"} 1
# HELP piweb_request_seconds Request durations.
# TYPE piweb_request_seconds histogram
piweb_request_seconds_bucket{route="x",le="0.1"} 2
piweb_request_seconds_bucket{route="x",le="1"} 2
piweb_request_seconds_bucket{route="x",le="+Inf"} 3
piweb_request_seconds_sum{route="x"} 5.15
piweb_request_seconds_count{route="x"} 3
# HELP piweb_streams Open streams.\nNow.
# TYPE piweb_streams gauge
piweb_streams 3
`
	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if diff := cmp.Diff(want, rec.Body.String()); diff != "" {
		t.Errorf("exposition (-want +got):\n%s", diff)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
}

// TestMisuse: a family registered twice and a wrong number of label
// values are programming errors.
func TestMisuse(t *testing.T) {
	for name, f := range map[string]func(){
		"twice": func() {
			r := New()
			r.GaugeFunc("a", "", func() float64 { return 0 })
			r.GaugeFunc("a", "", func() float64 { return 0 })
		},
		"labels": func() { New().CounterVec("c", "", "x").Add(1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
