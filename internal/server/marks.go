package server

import (
	"math"
	"net/http"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/live"
	"piweb/internal/own"
)

// The user's read marks and mutes (internal/own), kept on the
// server so they follow the user across browsers and devices; every
// change goes to the index topic as "attention_state" for the other tabs.

func (s *Server) getAttention(w http.ResponseWriter, r *http.Request) error {
	return ok(w, s.marks.State())
}

// postRead marks sessions read up to now, or up to their last activity
// when that is later (the file's clock may run ahead of piweb's).
func (s *Server) postRead(w http.ResponseWriter, r *http.Request) error {
	var body apitype.ReadRequest
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	now := time.Now()
	marks := make(map[string]time.Time, len(body.IDs))
	for _, id := range body.IDs {
		m, found := s.cat.ByKey(id)
		if !found {
			continue
		}
		at := now
		if mod := time.UnixMilli(int64(m.Modified)); !math.IsNaN(m.Modified) && mod.After(at) {
			at = mod
		}
		marks[id] = at
	}
	st, err := s.marks.MarkRead(marks, func(id string) bool { _, found := s.cat.ByKey(id); return found })
	return s.marksChanged(w, st, err)
}

// postMute mutes or unmutes one session, or every session when the id
// is empty.
func (s *Server) postMute(w http.ResponseWriter, r *http.Request) error {
	var body apitype.MuteRequest
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	var st own.Attention
	var err error
	if body.ID == "" {
		st, err = s.marks.SetGlobalMute(body.Muted)
	} else {
		st, err = s.marks.SetMuted(body.ID, body.Muted)
	}
	return s.marksChanged(w, st, err)
}

func (s *Server) marksChanged(w http.ResponseWriter, st own.Attention, err error) error {
	if err != nil {
		return err
	}
	s.live.PublishJSON(live.IndexTopic, apitype.AttentionState{Type: "attention_state", Attention: st})
	return ok(w, st)
}
