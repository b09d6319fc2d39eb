package own

import (
	"maps"
	"slices"
	"time"

	"piweb/internal/apitype"
)

// Attention is the user's marks, as GET /api/attention answers them
// (apitype.Attention, where the API's shapes are defined).
type Attention = apitype.Attention

// AttentionStore holds the Attention of one config dir (file
// attention.json). Its methods are safe for concurrent use; each change is
// on disk before it returns.
type AttentionStore struct {
	f jsonFile[Attention]
}

// OpenAttention loads the marks kept in dir (file attention.json), or starts them
// now when there are none; dir "" keeps them in memory only. A file that
// does not parse is an error (it is not overwritten).
func OpenAttention(dir string, now time.Time) (*AttentionStore, error) {
	s := &AttentionStore{f: jsonFile[Attention]{op: "own.Attention", what: "the read marks and mutes",
		clone: cloneAttention, v: Attention{Since: now, Read: map[string]time.Time{}}}}
	fill := func(st *Attention) {
		if st.Read == nil {
			st.Read = map[string]time.Time{}
		}
	}
	if err := s.f.open(dir, "attention.json", fill); err != nil {
		return nil, err
	}
	return s, nil
}

// State is a copy of the marks.
func (s *AttentionStore) State() Attention { return s.f.get() }

func cloneAttention(st Attention) Attention {
	st.Read = maps.Clone(st.Read)
	if st.Read == nil {
		st.Read = map[string]time.Time{}
	}
	st.Muted = slices.Clone(st.Muted)
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

// change applies c and counts the change in Rev.
func (s *AttentionStore) change(c func(*Attention)) (Attention, error) {
	return s.f.change(func(st *Attention) {
		c(st)
		st.Rev++
	})
}

// Silenced reports whether a session's alerts are muted, by itself or
// by the global mute.
func (s *AttentionStore) Silenced(id string) (silenced bool) {
	s.f.peek(func(st *Attention) { silenced = st.GlobalMute || slices.Contains(st.Muted, id) })
	return silenced
}
