package own

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"piweb/internal/apitype"
	"piweb/internal/errs"
)

// Prefs are piweb's preferences (apitype.Preferences, where the API's shapes are
// defined).
type Prefs = apitype.Preferences

// PrefsStore holds the Prefs of one config dir. Its methods are safe for
// concurrent use; a change is on disk before Set returns.
type PrefsStore struct {
	path string
	mu   sync.Mutex
	p    Prefs
}

// OpenPrefs loads the preferences kept in dir, or the defaults when there are
// none; dir "" keeps them in memory only. A file that does not parse is
// an error (it is not overwritten).
func OpenPrefs(dir string) (*PrefsStore, error) {
	s := &PrefsStore{}
	if dir == "" {
		return s, nil
	}
	s.path = filepath.Join(dir, "prefs.json")
	if _, err := ReadJSON(s.path, &s.p); err != nil {
		return nil, err
	}
	return s, nil
}

// Get is the current preferences.
func (s *PrefsStore) Get() Prefs {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.p
}

// Set replaces the preferences, on disk first: when the write fails they
// stay as they were, and the error says "cannot save piweb's preferences"
// to the client (its kind is the file system's: a full disk is no_space).
func (s *PrefsStore) Set(p Prefs) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path != "" {
		if err := s.write(p); err != nil {
			return errs.E("own.Prefs", "cannot save piweb's preferences", err)
		}
	}
	s.p = p
	return nil
}

// write replaces the preferences' file with p.
func (s *PrefsStore) write(p Prefs) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	return WriteFile(s.path, append(b, '\n'), 0o600)
}
