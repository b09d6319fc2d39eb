package server

import (
	"io"
	"strings"
	"testing"

	"piweb/internal/metrics"
)

// TestMetrics: /metrics counts requests by route pattern and status, and
// it and /debug/pprof/ exist only with a registry and ask for sign-in like
// every route (without a registry they are the page's fallback).
func TestMetrics(t *testing.T) {
	r := newRig(t, Options{Metrics: metrics.New()})
	r.items()
	r.do("GET", "/api/sessions/nope", nil).Body.Close()
	body := func(path string, want int) string {
		t.Helper()
		resp := r.do("GET", path, nil)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("GET %s: %d, want %d: %s", path, resp.StatusCode, want, b)
		}
		return string(b)
	}
	m := body("/metrics", 200)
	for _, want := range []string{
		`piweb_http_requests_total{route="GET /api/sessions",status="200"} 1`,
		`piweb_http_requests_total{route="GET /api/sessions/{id}",status="404"} 1`,
		`piweb_http_request_duration_seconds_count{route="GET /api/sessions"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, m)
		}
	}
	if p := body("/debug/pprof/", 200); !strings.Contains(p, "goroutine") {
		t.Errorf("/debug/pprof/ lists no goroutine profile: %.200s", p)
	}

	off := newRig(t, Options{})
	for _, p := range []string{"/metrics", "/debug/pprof/"} {
		resp := off.do("GET", p, nil)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "piweb_http") || strings.Contains(string(b), "goroutine") {
			t.Errorf("GET %s without a registry serves it: %.200s", p, b)
		}
	}
	locked := newRig(t, Options{Metrics: metrics.New(), Login: true})
	for _, p := range []string{"/metrics", "/debug/pprof/", "/debug/pprof/cmdline"} {
		if resp := locked.do("GET", p, nil); resp.StatusCode != 401 {
			t.Errorf("GET %s without signing in: %d, want 401", p, resp.StatusCode)
		}
	}
}
