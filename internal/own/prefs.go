package own

import (
	"piweb/internal/apitype"
)

// Prefs are piweb's preferences (apitype.Preferences, where the API's shapes are
// defined).
type Prefs = apitype.Preferences

// PrefsStore holds the Prefs of one config dir (file prefs.json). Its
// methods are safe for concurrent use; a change is on disk before Set
// returns.
type PrefsStore struct {
	f jsonFile[Prefs]
}

// OpenPrefs loads the preferences kept in dir, or the defaults when there are
// none; dir "" keeps them in memory only. A file that does not parse is
// an error (it is not overwritten).
func OpenPrefs(dir string) (*PrefsStore, error) {
	s := &PrefsStore{f: jsonFile[Prefs]{op: "own.Prefs", what: "piweb's preferences", clone: func(p Prefs) Prefs { return p }}}
	if err := s.f.open(dir, "prefs.json", func(*Prefs) {}); err != nil {
		return nil, err
	}
	return s, nil
}

// Get is the current preferences.
func (s *PrefsStore) Get() Prefs { return s.f.get() }

// Set replaces the preferences, on disk first: when the write fails they
// stay as they were, and the error says "cannot save piweb's preferences"
// to the client (its kind is the file system's: a full disk is no_space).
func (s *PrefsStore) Set(p Prefs) error {
	_, err := s.f.change(func(next *Prefs) { *next = p })
	return err
}
