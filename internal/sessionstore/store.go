package sessionstore

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"piweb/internal/errs"
	"piweb/internal/opt"
	"piweb/pisession"
)

// Store performs piweb's mutations of the session files of one agent dir
// when no live pi owns the file: names and labels are single appends
// (retried when another writer appended in between), forks and clones are
// new files beside the source, and delete is a journaled move into the
// trash (trash.go). Its zero value is not usable; set AgentDir.
type Store struct {
	// AgentDir is pi's agent dir; the trash is AgentDir/trash.
	AgentDir string
	// Fault, when set, is called before each step of a delete or restore
	// with the step's name (see the Step constants). An error stops the
	// operation there: ErrCrash leaves everything as a killed process
	// would (for crash tests), any other error is a failure of that step.
	Fault func(step string) error
	// Now is the clock of trash ids and backup ages; nil is time.Now.
	Now func() time.Time
	// Log gets what the start's tidying (Recover) could not do; nil
	// discards it.
	Log *slog.Logger
	// setParent replaces SetParent in tests of the lineage alone (nil:
	// SetParent, whose rewrite waits for late writers).
	setParent func(path, from, to string) error
	// trashMu serializes the trash's operations (trash.go's lock).
	trashMu sync.Mutex
}

func (st *Store) log() *slog.Logger {
	return opt.Logger(st.Log)
}

// ErrCrash, returned by a Fault hook, stops an operation as if the process
// had been killed at that step: nothing is rolled back until Recover.
var ErrCrash = errors.New("simulated crash")

func (st *Store) now() time.Time {
	return opt.Now(st.Now)
}

// repoint is SetParent, or the test's replacement.
func (st *Store) repoint(path, from, to string) error {
	if st.setParent != nil {
		return st.setParent(path, from, to)
	}
	return SetParent(path, from, to)
}

// fault runs the Fault hook for step.
func (st *Store) fault(step string) error {
	if st.Fault == nil {
		return nil
	}
	return st.Fault(step)
}

// Rename appends a session_info entry naming the session at path.
func (st *Store) Rename(path, name string) error {
	return appendRetry(path, func(s *pisession.Session) error {
		_, err := AppendName(path, s, name)
		return err
	})
}

// Label appends a label entry (an empty label clears it).
func (st *Store) Label(path, entryID, label string) error {
	return appendRetry(path, func(s *pisession.Session) error {
		_, err := AppendLabel(path, s, entryID, label)
		return err
	})
}

// appendRetry parses the file afresh (never a shared cached parse, since
// appending updates the Session it is given) and runs do, up to three
// times while another writer appends in between.
func appendRetry(path string, do func(*pisession.Session) error) error {
	var err error
	for range 3 {
		var s *pisession.Session
		if s, err = pisession.ReadFile(path); err != nil {
			return err
		}
		if err = do(s); !errors.Is(err, ErrChanged) {
			break
		}
	}
	return err
}

// ErrNotUserMessage is returned by Fork for an entry that is not a user
// message.
var ErrNotUserMessage = errs.New(errs.Invalid, "fork needs a user message entry", "fork needs a user message entry")

// Fork writes pi's fork before the user message entryID beside the
// source (or in cwd: see place) and returns the new file and the
// message's text.
func (st *Store) Fork(path, entryID, cwd string) (newPath, text string, err error) {
	s, err := pisession.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	e := s.ByID(entryID)
	if e == nil {
		return "", "", pisession.ErrNotFound
	}
	if e.Role() != "user" {
		return "", "", ErrNotUserMessage
	}
	content, err := s.ForkBefore(entryID, path)
	if err != nil {
		return "", "", err
	}
	np, err := st.place(path, content, cwd)
	return np, pisession.SearchableEntry(e).Join(true), err
}

// Clone writes the branch ending at leafID (default the leaf) beside the
// source (or in cwd: see place) and returns the new file. With all it
// writes every branch instead, as pi's fork into another folder does
// (forkFrom), which the session's own folder being gone asks for.
func (st *Store) Clone(path, leafID, cwd string, all bool) (string, error) {
	s, err := pisession.ReadFile(path)
	if err != nil {
		return "", err
	}
	var content []byte
	switch {
	case all:
		to := cwd
		if to == "" && s.Header != nil {
			to, _ = s.Header.String("cwd")
		}
		content = s.ForkTo(to, path)
	case leafID == "":
		content, err = s.Clone(path)
	default:
		content, err = s.Extract(leafID, path)
	}
	if err != nil {
		return "", err
	}
	return st.place(path, content, cwd)
}

// place writes a new session's content beside its source, or with cwd
// set in cwd's own sessions folder with its header's cwd changed (pi's
// fork into another folder: the original keeps its history untouched).
// cwd must be an existing folder.
func (st *Store) place(source string, content []byte, cwd string) (string, error) {
	dir := filepath.Dir(source)
	if cwd != "" {
		if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() || !filepath.IsAbs(cwd) {
			return "", errs.Errorf(errs.Invalid, "%s is not an existing folder", cwd)
		}
		content = pisession.InCwd(content, cwd)
		dir = filepath.Join(st.AgentDir, "sessions", pisession.EncodeCwd(cwd))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", err
		}
	}
	return NewFile(dir, content)
}
