package own

import (
	"maps"
	"sync/atomic"
	"time"

	"piweb/internal/apitype"
)

// Order is the user's pins and archive (apitype.Order, where the API's
// shapes are defined).
type Order = apitype.Order

// OrderStore holds the Order of one config dir (file order.json). Its
// methods are safe for concurrent use; each change is on disk before it
// returns.
type OrderStore struct {
	f   jsonFile[Order]
	gen atomic.Uint64
}

// OpenOrder loads the pins and archive kept in dir, or none; dir "" keeps
// them in memory only. A file that does not parse is an error (it is not
// overwritten).
func OpenOrder(dir string) (*OrderStore, error) {
	s := &OrderStore{f: jsonFile[Order]{op: "own.Order", what: "the pins and archive", clone: cloneOrder,
		v: Order{Pinned: map[string]time.Time{}, Archived: map[string]time.Time{}}}}
	if err := s.f.open(dir, "order.json", fillOrder); err != nil {
		return nil, err
	}
	return s, nil
}

func fillOrder(st *Order) {
	if st.Pinned == nil {
		st.Pinned = map[string]time.Time{}
	}
	if st.Archived == nil {
		st.Archived = map[string]time.Time{}
	}
}

func cloneOrder(st Order) Order {
	return Order{Pinned: maps.Clone(st.Pinned), Archived: maps.Clone(st.Archived), Rev: st.Rev}
}

// State is a copy of the pins and archive.
func (s *OrderStore) State() Order { return s.f.get() }

// Generation changes whenever the pins or the archive may have, so
// listings built from them can be cached.
func (s *OrderStore) Generation() uint64 { return s.gen.Load() }

// Set pins or unpins (pinned non-nil) and archives or restores (archived
// non-nil) every session of ids at once; a session pinned or archived
// already keeps its time.
func (s *OrderStore) Set(ids []string, pinned, archived *bool, now time.Time) (Order, error) {
	defer s.gen.Add(1)
	return s.f.change(func(next *Order) {
		mark(next.Pinned, ids, pinned, now)
		mark(next.Archived, ids, archived, now)
		next.Rev++
	})
}

// mark adds ids to set at now (on) or removes them (off); nil: nothing.
func mark(set map[string]time.Time, ids []string, on *bool, now time.Time) {
	if on == nil {
		return
	}
	for _, id := range ids {
		if !*on {
			delete(set, id)
		} else if _, had := set[id]; !had {
			set[id] = now
		}
	}
}
