package piconfig

import (
	"os"
	"path/filepath"
	"time"

	"piweb/internal/errs"
	"piweb/internal/opt"
)

// Store reads and writes the config files of one pi agent dir.
type Store struct {
	// AgentDir is pi's agent dir (see AgentDir).
	AgentDir string
	// LockWait bounds how long a write waits for pi's lock (2 s if zero).
	LockWait time.Duration
	// Now stamps the copies of corrupt files (time.Now if nil).
	Now func() time.Time
}

// AgentDir is pi's getAgentDir(): PI_CODING_AGENT_DIR with a leading "~"
// expanded, else ~/.pi/agent.
func AgentDir(getenv func(string) string) string {
	home, _ := os.UserHomeDir()
	if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
		if d == "~" {
			return home
		}
		if len(d) > 1 && d[0] == '~' && d[1] == '/' {
			return filepath.Join(home, d[2:])
		}
		return d
	}
	return filepath.Join(home, ".pi", "agent")
}

func (s *Store) lockWait() time.Duration {
	if s.LockWait > 0 {
		return s.LockWait
	}
	return 2 * time.Second
}

func (s *Store) now() time.Time {
	return opt.Now(s.Now)
}

// SettingsPath is the global settings.json.
func (s *Store) SettingsPath() string { return filepath.Join(s.AgentDir, "settings.json") }

// ProjectSettingsPath is a project's settings file, <cwd>/.pi/settings.json.
func ProjectSettingsPath(cwd string) string { return filepath.Join(cwd, ".pi", "settings.json") }

// AuthPath is auth.json, where pi keeps API keys and sign-ins.
func (s *Store) AuthPath() string { return filepath.Join(s.AgentDir, "auth.json") }

// ModelsPath is models.json, pi's custom providers and models.
func (s *Store) ModelsPath() string { return filepath.Join(s.AgentDir, "models.json") }

// update runs edit on the file at path under pi's lock and writes what it
// returns (nil: nothing to write). A corrupt file is refused with its
// *CorruptError unless replaceCorrupt, in which case it is copied aside
// first and edit starts from an empty object.
// An error without a kind of its own is worded "cannot write pi's
// configuration" for the client.
func (s *Store) update(path string, lockPath string, mode0 os.FileMode, replaceCorrupt bool,
	edit func(d *doc) ([]byte, error)) (err error) {
	defer func() {
		if err != nil {
			err = errs.E("", "cannot write pi's configuration", err)
		}
	}()
	dirMode := os.FileMode(0o755) // pi's mkdirSync default
	if mode0&0o077 == 0 {
		dirMode = 0o700 // auth.json's folder, as pi makes it
	}
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // pi writes through a symlinked file; a rename must not replace the link
	}
	unlock, err := lockFile(lockPath, s.lockWait())
	if err != nil {
		return err
	}
	defer unlock()
	d, err := readDoc(path)
	if err != nil {
		if _, corrupt := err.(*CorruptError); !corrupt || !replaceCorrupt {
			return err
		}
		if _, err := saveCorrupt(path, d.raw, d.mode, s.now()); err != nil {
			return err
		}
	}
	if !d.exists {
		d.mode = mode0
	}
	next, err := edit(d)
	if err != nil || next == nil {
		return err
	}
	return writeFile(path, d.raw, d.exists, next, d.mode)
}
