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
// Each answer counts the unread sessions of the sidebar's listing, which
// the page holds only part of (decision 0045).

// getAttention answers the marks and the count, or with only=unread the
// count alone: a page holding part of the listing asks again as it
// changes, up to once a second, and the marks can be thousands.
func (s *Server) getAttention(w http.ResponseWriter, r *http.Request) error {
	a := s.attentionAnswer(s.marks.State())
	if r.URL.Query().Get("only") == "unread" {
		return ok(w, apitype.UnreadCount{Unread: a.Unread})
	}
	return ok(w, a)
}

// postRead marks sessions read up to now, or up to their last activity
// when that is later (the file's clock may run ahead of piweb's): those
// named, or with all every unread one of the sidebar's listing.
func (s *Server) postRead(w http.ResponseWriter, r *http.Request) error {
	var body apitype.ReadRequest
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	now := time.Now()
	marks := make(map[string]time.Time, len(body.IDs))
	for _, id := range body.IDs {
		if m, found := s.cat.ByKey(id); found {
			marks[id] = readAt(m, now)
		}
	}
	if body.All {
		s.eachUnread(s.marks.State(), func(m Meta) { marks[m.Key] = readAt(m, now) })
	}
	st, err := s.marks.MarkRead(marks, func(id string) bool { _, found := s.cat.ByKey(id); return found })
	return s.marksChanged(w, st, err)
}

// readAt is the mark of session m read now: now, or its last activity if
// later.
func readAt(m Meta, now time.Time) time.Time {
	if mod := time.UnixMilli(int64(m.Modified)); !math.IsNaN(m.Modified) && mod.After(now) {
		return mod
	}
	return now
}

// eachUnread calls f with every unread session of the sidebar's listing
// (the catalog's, the archive left out): activity after its read mark, or
// after the marks began, in ms as the page's isUnread (js/attention.js).
// Activity before the marks began, most sessions', is read without a
// look at the marks.
func (s *Server) eachUnread(st own.Attention, f func(Meta)) {
	since := st.Since.UnixMilli()
	archived := s.order.State().Archived
	s.cat.Each(func(m *Meta) {
		mod := int64(m.Modified)
		if math.IsNaN(m.Modified) || mod <= since {
			return
		}
		if at, marked := st.Read[m.Key]; marked && mod <= at.UnixMilli() {
			return
		}
		if _, a := archived[m.Key]; !a {
			f(*m)
		}
	})
}

// attentionAnswer is st with the count of the listing's unread sessions.
func (s *Server) attentionAnswer(st own.Attention) apitype.AttentionAnswer {
	n := 0
	s.eachUnread(st, func(Meta) { n++ })
	return apitype.AttentionAnswer{Attention: st, Unread: n}
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
	a := s.attentionAnswer(st)
	s.live.PublishJSON(live.IndexTopic, apitype.AttentionState{Type: "attention_state", AttentionAnswer: a})
	return ok(w, a)
}
