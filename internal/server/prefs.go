package server

import (
	"net/http"

	"piweb/internal/apitype"
)

// piweb's own preferences (internal/own), not pi's: kept under piweb's
// config dir for every device.

func (s *Server) getPrefs(w http.ResponseWriter, r *http.Request) error {
	return ok(w, s.prefsView())
}

func (s *Server) putPrefs(w http.ResponseWriter, r *http.Request) error {
	var body apitype.PrefsChange
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	p := s.prefs.Get()
	if body.ModelTitles != nil {
		p.ModelTitles = *body.ModelTitles
	}
	if err := s.prefs.Set(p); err != nil {
		return err
	}
	return ok(w, s.prefsView())
}

func (s *Server) prefsView() apitype.Prefs {
	return apitype.Prefs{Preferences: s.prefs.Get(), ModelTitlesForced: s.app.ModelTitles}
}
