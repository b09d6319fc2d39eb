package own

import (
	"maps"
	"path/filepath"
	"sync"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/errs"
)

// Order is the user's pins and archive (apitype.Order, where the API's
// shapes are defined).
type Order = apitype.Order

// OrderStore holds the Order of one config dir (file order.json). Its
// methods are safe for concurrent use; each change is on disk before it
// returns.
type OrderStore struct {
	path string
	mu   sync.Mutex
	st   Order
}

// OpenOrder loads the pins and archive kept in dir, or none; dir "" keeps
// them in memory only. A file that does not parse is an error (it is not
// overwritten).
func OpenOrder(dir string) (*OrderStore, error) {
	s := &OrderStore{st: Order{Pinned: map[string]time.Time{}, Archived: map[string]time.Time{}}}
	if dir == "" {
		return s, nil
	}
	s.path = filepath.Join(dir, "order.json")
	var st Order
	if found, err := ReadJSON(s.path, &st); err != nil {
		return nil, err
	} else if !found {
		return s, nil
	}
	s.st = filled(st)
	return s, nil
}

func filled(st Order) Order {
	if st.Pinned == nil {
		st.Pinned = map[string]time.Time{}
	}
	if st.Archived == nil {
		st.Archived = map[string]time.Time{}
	}
	return st
}

// State is a copy of the pins and archive.
func (s *OrderStore) State() Order {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.copyLocked()
}

func (s *OrderStore) copyLocked() Order {
	return Order{Pinned: maps.Clone(s.st.Pinned), Archived: maps.Clone(s.st.Archived)}
}

// Set pins or unpins (pinned non-nil) and archives or restores (archived
// non-nil) every session of ids at once; a session pinned or archived
// already keeps its time.
func (s *OrderStore) Set(ids []string, pinned, archived *bool, now time.Time) (Order, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.copyLocked()
	mark(next.Pinned, ids, pinned, now)
	mark(next.Archived, ids, archived, now)
	if err := s.save(next); err != nil {
		return s.copyLocked(), err
	}
	s.st = next
	return s.copyLocked(), nil
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

// save replaces the file atomically (synced temp file, rename), 0600; a
// failure says "cannot save the pins and archive" to the client.
func (s *OrderStore) save(st Order) error {
	if s.path == "" {
		return nil
	}
	if err := WritePrivateJSON(s.path, st); err != nil {
		return errs.E("own.Order", "cannot save the pins and archive", err)
	}
	return nil
}
