package index

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"piweb/internal/session"
)

// root is a directory holding session files.
type root struct {
	dir string
	// tree is true for <agentDir>/sessions, whose session files sit one
	// folder down (one folder per cwd); false for a flat session dir named
	// by PI_CODING_AGENT_SESSION_DIR or settings.json, whose files sit
	// directly inside.
	tree bool
}

// roots returns where pi puts sessions for this agent dir: the sessions
// tree, plus the flat dirs of the env variable and of the global
// settings.json sessionDir (both tilde-expanded as pi does; a relative
// sessionDir is taken relative to piweb's working directory, as pi's fs
// calls take it relative to pi's).
func roots(agentDir string, getenv func(string) string) []root {
	out := []root{{dir: filepath.Join(agentDir, "sessions"), tree: true}}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	seen := map[string]bool{}
	add := func(d string) {
		if d == "" {
			return
		}
		d = session.ExpandTilde(d, home)
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, root{dir: d})
		}
	}
	add(getenv("PI_CODING_AGENT_SESSION_DIR"))
	add(settingsSessionDir(agentDir))
	return out
}

// settingsSessionDir reads "sessionDir" from <agentDir>/settings.json; ""
// when absent or unreadable. Project settings (<cwd>/.pi/settings.json) can
// also set it, but they belong to one cwd and are not read here.
func settingsSessionDir(agentDir string) string {
	b, err := os.ReadFile(filepath.Join(agentDir, "settings.json"))
	if err != nil {
		return ""
	}
	var s struct {
		SessionDir any `json:"sessionDir"`
	}
	if json.Unmarshal(b, &s) != nil {
		return ""
	}
	d, _ := s.SessionDir.(string)
	return d
}

// found is a discovered session file.
type found struct {
	path string
	// listAll is true for files pi's listAll reads (sessions/*/*.jsonl).
	listAll bool
}

// discover lists the session files of the roots. Files of the tree come in
// the order pi's listAll reads them (directory order), which decides the
// order of sessions with equal modified times.
func discover(rs []root) (files []found, dirs []string) {
	seen := map[string]bool{}
	for _, r := range rs {
		if r.tree {
			dirs = append(dirs, r.dir)
			for _, p := range session.SessionFiles(filepath.Dir(r.dir)) {
				seen[p] = true
				files = append(files, found{p, true})
			}
			for _, d := range readDir(r.dir) {
				if d.IsDir() {
					dirs = append(dirs, filepath.Join(r.dir, d.Name()))
				}
			}
			continue
		}
		dirs = append(dirs, r.dir)
		for _, d := range readDir(r.dir) {
			p := filepath.Join(r.dir, d.Name())
			if strings.HasSuffix(d.Name(), ".jsonl") && !seen[p] {
				seen[p] = true
				files = append(files, found{p, false})
			}
		}
	}
	return files, dirs
}

func readDir(dir string) []os.DirEntry {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	ents, _ := f.ReadDir(-1)
	return ents
}
