package metrics

import (
	"bytes"
	"maps"
	"slices"
	"strconv"
	"sync"
)

// CounterVec is a counter per combination of label values.
type CounterVec struct {
	labels []string
	mu     sync.Mutex
	vals   map[string]float64 // by rendered label pairs
}

// CounterVec registers a counter family with the given labels.
func (r *Registry) CounterVec(name, help string, labels ...string) *CounterVec {
	c := &CounterVec{labels: labels, vals: map[string]float64{}}
	r.add(name, help, "counter", c.write)
	return c
}

// Add adds delta (not negative) to the counter of the label values.
func (c *CounterVec) Add(delta float64, values ...string) {
	k := labelPairs(c.labels, values)
	c.mu.Lock()
	c.vals[k] += delta
	c.mu.Unlock()
}

func (c *CounterVec) write(b *bytes.Buffer, name string) {
	c.mu.Lock()
	vals := maps.Clone(c.vals)
	c.mu.Unlock()
	for _, k := range slices.Sorted(maps.Keys(vals)) {
		sample(b, name, k, vals[k])
	}
}

// HistogramVec is a histogram per combination of label values, with
// fixed upper bounds.
type HistogramVec struct {
	labels  []string
	buckets []float64 // upper bounds, ascending; +Inf is implied
	mu      sync.Mutex
	vals    map[string]*histogram
}

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	count  uint64
	sum    float64
}

// DurationBuckets are upper bounds in seconds for request durations.
var DurationBuckets = []float64{0.005, 0.025, 0.1, 0.25, 1, 2.5, 10}

// HistogramVec registers a histogram family with the given bucket upper
// bounds (ascending) and labels.
func (r *Registry) HistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	h := &HistogramVec{labels: labels, buckets: slices.Clone(buckets), vals: map[string]*histogram{}}
	r.add(name, help, "histogram", h.write)
	return h
}

// Observe records v for the label values.
func (h *HistogramVec) Observe(v float64, values ...string) {
	k := labelPairs(h.labels, values)
	i, _ := slices.BinarySearch(h.buckets, v)
	h.mu.Lock()
	defer h.mu.Unlock()
	x := h.vals[k]
	if x == nil {
		x = &histogram{counts: make([]uint64, len(h.buckets)+1)}
		h.vals[k] = x
	}
	x.counts[i]++
	x.count++
	x.sum += v
}

func (h *HistogramVec) write(b *bytes.Buffer, name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, k := range slices.Sorted(maps.Keys(h.vals)) {
		x := h.vals[k]
		sep := ""
		if k != "" {
			sep = ","
		}
		var cum uint64
		for i, ub := range h.buckets {
			cum += x.counts[i]
			sample(b, name+"_bucket", k+sep+`le="`+strconv.FormatFloat(ub, 'g', -1, 64)+`"`, float64(cum))
		}
		sample(b, name+"_bucket", k+sep+`le="+Inf"`, float64(x.count))
		sample(b, name+"_sum", k, x.sum)
		sample(b, name+"_count", k, float64(x.count))
	}
}
