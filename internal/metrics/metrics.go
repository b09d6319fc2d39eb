// Package metrics keeps piweb's counters, histograms and gauges and writes
// them in Prometheus's text exposition format (version 0.0.4) for the
// owner's /metrics. It is small on purpose: a registry built by the
// composition root, handed to whatever counts, and no global state.
//
// Every method is safe for concurrent use. Label values are given in the
// order the labels were declared; a call with the wrong number of values
// panics, as it is a programming error.
package metrics

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Registry holds metric families in the order they were registered.
type Registry struct {
	mu       sync.Mutex
	families []family
}

// family is one metric's help, type and samples.
type family struct {
	name, help, typ string
	write           func(b *bytes.Buffer, name string)
}

// New returns an empty Registry.
func New() *Registry { return &Registry{} }

func (r *Registry) add(name, help, typ string, write func(*bytes.Buffer, string)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.families {
		if f.name == name {
			panic("metrics: " + name + " registered twice")
		}
	}
	r.families = append(r.families, family{name, help, typ, write})
}

// GaugeFunc registers a gauge whose value f gives when the metrics are
// written; f must be quick and safe for concurrent use.
func (r *Registry) GaugeFunc(name, help string, f func() float64) {
	r.add(name, help, "gauge", func(b *bytes.Buffer, name string) {
		sample(b, name, "", f())
	})
}

// WriteTo writes every family in the text exposition format.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	r.mu.Lock()
	fams := slices.Clone(r.families)
	r.mu.Unlock()
	var b bytes.Buffer
	for _, f := range fams {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", f.name, escapeHelp(f.help), f.name, f.typ)
		f.write(&b, f.name)
	}
	n, err := w.Write(b.Bytes())
	return int64(n), err
}

// Handler serves the metrics (GET only).
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		r.WriteTo(w)
	})
}

// sample writes one line: name{labels} value.
func sample(b *bytes.Buffer, name, labels string, v float64) {
	b.WriteString(name)
	if labels != "" {
		b.WriteString("{" + labels + "}")
	}
	b.WriteByte(' ')
	b.WriteString(formatValue(v))
	b.WriteByte('\n')
}

func formatValue(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// labelPairs renders names and values as name="value",...
func labelPairs(names, values []string) string {
	if len(names) != len(values) {
		panic(fmt.Sprintf("metrics: %d label values for labels %v", len(values), names))
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + `="` + escapeLabel(values[i]) + `"`
	}
	return strings.Join(parts, ",")
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }
func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
