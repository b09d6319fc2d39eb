package index

import (
	"math"
	"slices"
	"strings"

	"piweb/pisession"
)

// meta is the per-session metadata beyond pi's SessionInfo, folded over the
// entries in file order and saved so that appends only add to it.
type meta struct {
	Entries int      `json:"entries"`
	LeafID  string   `json:"leafId"`
	Leaves  []string `json:"leaves"`
	Totals
	// LastEntry is the latest entry timestamp in ms.
	LastEntry int64 `json:"lastEntry,omitempty"`

	// forkedAt is the header time (ms) of a file with a parentSession,
	// during a full parse: older entries were copied from the parent.
	forkedAt int64

	leafSet map[string]bool
	// fresh sums the usage of the entries added since the meta was loaded,
	// by time slot and model, for the usage table (usage.go).
	fresh map[usageKey]*usageSum
}

// Totals is what a session's entries add up to beyond its tree: the
// compactions, the labels by entry, the models used, the tokens charged
// and their cost. The saved meta and the listing's Meta carry it alike.
type Totals struct {
	Compactions int               `json:"compactions"`
	Labels      map[string]string `json:"labels,omitempty"`
	Models      []string          `json:"models,omitempty"`
	Tokens      Tokens            `json:"tokens"`
	Cost        float64           `json:"cost"`
}

// Tokens sums the usage a session is charged for (pisession.ChargeOf).
type Tokens struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// add folds one entry in. m is its decoded message, nil for other entries.
func (md *meta) add(e rec, m *msg) {
	md.Entries++
	md.LeafID = e.ID
	md.noteLeaf(e)
	ts := pisession.StampMs(e.Timestamp)
	if ts > md.LastEntry {
		md.LastEntry = ts
	}
	switch e.Type {
	case "compaction":
		md.Compactions++
	case "label":
		md.label(e.Target, e.Label)
	case "model_change":
		md.model(e.Provider, e.ModelID)
	}
	if e.Type == "message" && m != nil && m.Role == "assistant" {
		md.model(m.Provider, m.Model)
	}
	if c, ok := chargeOf(e, m); ok {
		u := &c.Usage
		addSat(&md.Tokens.Input, u.Input)
		addSat(&md.Tokens.Output, u.Output)
		addSat(&md.Tokens.CacheRead, u.CacheRead)
		addSat(&md.Tokens.CacheWrite, u.CacheWrite)
		addSat(&md.Tokens.Total, u.TotalTokens)
		addSat(&md.Cost, u.Cost.Total)
		md.addUsage(ts, c)
	}
}

// addSat adds b to *a, saturating at ±math.MaxFloat64 and ignoring a NaN:
// usage numbers are JSON doubles whose sum can overflow (pi's own sum then
// is Infinity), and the meta must stay encodable as JSON.
func addSat(a *float64, b float64) {
	switch sum := *a + b; {
	case math.IsNaN(sum):
	case math.IsInf(sum, 1):
		*a = math.MaxFloat64
	case math.IsInf(sum, -1):
		*a = -math.MaxFloat64
	default:
		*a = sum
	}
}

// chargeOf is pisession.ChargeOf for the index's records: what an entry
// adds to the session's cost (answers, usage entries, summaries' and tool
// results' nested work).
func chargeOf(e rec, m *msg) (pisession.Charge, bool) {
	if e.Type == "message" {
		if m == nil {
			return pisession.Charge{}, false
		}
		return m.Charge()
	}
	return pisession.EntryCharge(e.Type, e.Provider, e.Model, e.Usage)
}

// noteLeaf keeps the set of entries without children: the new entry is a
// leaf and its parent no longer is.
func (md *meta) noteLeaf(e rec) {
	if md.leafSet == nil {
		md.leafSet = make(map[string]bool, len(md.Leaves)+1)
		for _, l := range md.Leaves {
			md.leafSet[l] = true
		}
	}
	if e.HasParent {
		delete(md.leafSet, e.ParentID)
	}
	if e.ID != "" {
		md.leafSet[e.ID] = true
	}
}

// finish makes the saved form current.
func (md *meta) finish() {
	if md.leafSet == nil {
		return
	}
	md.Leaves = md.Leaves[:0]
	for l := range md.leafSet {
		md.Leaves = append(md.Leaves, l)
	}
	slices.Sort(md.Leaves)
}

func (md *meta) label(target, l string) {
	if l == "" {
		delete(md.Labels, target)
		return
	}
	if md.Labels == nil {
		md.Labels = map[string]string{}
	}
	md.Labels[target] = l
}

func (md *meta) model(provider, id string) {
	if id == "" || slices.ContainsFunc(md.Models, func(n string) bool { return isModel(n, provider, id) }) {
		return // a name is made for a new model only (one for every answer was a seventh of the parse's allocations)
	}
	md.Models = append(md.Models, modelName(provider, id))
}

// isModel reports whether name is modelName(provider, id), without
// making the latter.
func isModel(name, provider, id string) bool {
	if provider == "" {
		return name == id
	}
	return len(name) == len(provider)+1+len(id) && name[len(provider)] == '/' &&
		strings.HasPrefix(name, provider) && strings.HasSuffix(name, id)
}

// modelName names a model as provider/id, or id without a provider; ""
// without an id.
func modelName(provider, id string) string {
	if id == "" || provider == "" {
		return id
	}
	return provider + "/" + id
}

// entryTime returns the entry's timestamp in ms, 0 when it has none.
func entryTime(e *pisession.Entry) int64 { return pisession.StampMs(e.Timestamp) }
