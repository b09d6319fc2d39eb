package main

import (
	"piweb/internal/agent"
	"piweb/internal/app"
	"piweb/internal/catalog"
	"piweb/internal/fleet"
	"piweb/internal/metrics"
)

// newMetrics is serve's registry: the server adds its request counts, and
// these gauges read the parts' state when /metrics is asked.
func newMetrics(cat *catalog.Catalog, parts *app.App, fl *fleet.Service) *metrics.Registry {
	reg := metrics.New()
	reg.GaugeFunc("piweb_sessions", "Session files listed by the index.",
		func() float64 { return float64(cat.State().Sessions) })
	reg.GaugeFunc("piweb_index_text_behind", "Session files whose text is not yet searchable (the index's lag).",
		func() float64 { return float64(cat.State().TextBehind) })
	reg.GaugeFunc("piweb_open_streams", "Event streams open to browser tabs.",
		func() float64 { return float64(parts.Streams.Open()) })
	reg.GaugeFunc("piweb_live_workers", "pi processes running for sessions.", func() float64 {
		if s, ok := parts.Agent.(*agent.Service); ok {
			return float64(s.LiveCount())
		}
		return 0
	})
	if fl != nil && fl.Pusher != nil {
		reg.GaugeFunc("piweb_fleet_push_behind", "Session files changed here and not yet pushed to the fleet database.",
			func() float64 { return float64(fl.Pusher.Status().Behind) })
	}
	return reg
}
