// Package prefs keeps piweb's own preferences, the ones that are not pi's
// (pi's live in its settings.json, see piconfig): one small JSON file,
// prefs.json, under piweb's config dir (0600, folder 0700), replaced
// atomically on every change, so a preference set on one device holds on
// every device and across restarts. An empty dir keeps them in memory.
package prefs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"piweb/internal/atomicfile"
)

// Prefs are piweb's preferences. The zero value is every default.
type Prefs struct {
	// ModelTitles has a new session's first-line name replaced by a
	// title pi's default model writes (one short extra request). Off by
	// default.
	ModelTitles bool `json:"modelTitles"`
}

// Store holds the Prefs of one config dir. Its methods are safe for
// concurrent use; a change is on disk before Set returns.
type Store struct {
	path string
	mu   sync.Mutex
	p    Prefs
}

// Open loads the preferences kept in dir, or the defaults when there are
// none; dir "" keeps them in memory only. A file that does not parse is
// an error (it is not overwritten).
func Open(dir string) (*Store, error) {
	s := &Store{}
	if dir == "" {
		return s, nil
	}
	s.path = filepath.Join(dir, "prefs.json")
	if _, err := atomicfile.ReadJSON(s.path, &s.p); err != nil {
		return nil, err
	}
	return s, nil
}

// Get is the current preferences.
func (s *Store) Get() Prefs {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.p
}

// Set replaces the preferences, on disk first: when the write fails they
// stay as they were.
func (s *Store) Set(p Prefs) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path != "" {
		b, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
			return err
		}
		if err := atomicfile.Write(s.path, append(b, '\n'), 0o600); err != nil {
			return err
		}
	}
	s.p = p
	return nil
}
