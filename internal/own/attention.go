package own

import (
	"path/filepath"
	"slices"
	"sync"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/errs"
)

// Attention is the user's marks, as GET /api/attention answers them
// (apitype.Attention, where the API's shapes are defined).
type Attention = apitype.Attention

// AttentionStore holds the Attention of one config dir. Its methods are safe for
// concurrent use; each change is on disk before it returns.
type AttentionStore struct {
	path string
	mu   sync.Mutex
	st   Attention
}

// OpenAttention loads the marks kept in dir (file attention.json), or starts them
// now when there are none; dir "" keeps them in memory only. A file that
// does not parse is an error (it is not overwritten).
func OpenAttention(dir string, now time.Time) (*AttentionStore, error) {
	s := &AttentionStore{st: Attention{Since: now, Read: map[string]time.Time{}}}
	if dir == "" {
		return s, nil
	}
	s.path = filepath.Join(dir, "attention.json")
	var st Attention
	if found, err := ReadJSON(s.path, &st); err != nil {
		return nil, err
	} else if !found {
		return s, nil
	}
	if st.Read == nil {
		st.Read = map[string]time.Time{}
	}
	s.st = st
	return s, nil
}

// State is a copy of the marks.
func (s *AttentionStore) State() Attention {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.copyLocked()
}

func (s *AttentionStore) copyLocked() Attention {
	st := s.st
	st.Read = make(map[string]time.Time, len(s.st.Read))
	for k, v := range s.st.Read {
		st.Read[k] = v
	}
	st.Muted = slices.Clone(s.st.Muted)
	if st.Muted == nil {
		st.Muted = []string{}
	}
	return st
}

// MarkRead records that the user saw each session of marks at the given
// time; a mark never moves back. Marks of sessions for which listed
// reports false are forgotten (listed nil keeps them all).
func (s *AttentionStore) MarkRead(marks map[string]time.Time, listed func(id string) bool) (Attention, error) {
	return s.change(func(st *Attention) {
		for id, at := range marks {
			if at.After(st.Read[id]) {
				st.Read[id] = at
			}
		}
		if listed != nil {
			for id := range st.Read {
				if !listed(id) {
					delete(st.Read, id)
				}
			}
		}
	})
}

// SetMuted mutes or unmutes one session.
func (s *AttentionStore) SetMuted(id string, on bool) (Attention, error) {
	return s.change(func(st *Attention) {
		st.Muted = slices.DeleteFunc(st.Muted, func(x string) bool { return x == id })
		if on {
			st.Muted = append(st.Muted, id)
			slices.Sort(st.Muted)
		}
	})
}

// SetGlobalMute silences every session, or ends that.
func (s *AttentionStore) SetGlobalMute(on bool) (Attention, error) {
	return s.change(func(st *Attention) { st.GlobalMute = on })
}

// Silenced reports whether a session's alerts are muted, by itself or
// by the global mute.
func (s *AttentionStore) Silenced(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.GlobalMute || slices.Contains(s.st.Muted, id)
}

// change applies f to a copy, saves it and only then adopts it, so a
// failed save changes nothing.
func (s *AttentionStore) change(f func(*Attention)) (Attention, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.copyLocked()
	f(&next)
	if err := s.save(next); err != nil {
		return s.copyLocked(), err
	}
	s.st = next
	return s.copyLocked(), nil
}

// save replaces the file atomically (synced temp file, rename), 0600; a
// failure says "cannot save the read marks and mutes" to the client.
func (s *AttentionStore) save(st Attention) error {
	if s.path == "" {
		return nil
	}
	if err := WritePrivateJSON(s.path, st); err != nil {
		return errs.E("own.Attention", "cannot save the read marks and mutes", err)
	}
	return nil
}
