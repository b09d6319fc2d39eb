package index

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"piweb/pisession"
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
// calls take it relative to pi's), plus the flat dirs the project settings
// of the cwds name (projectDir).
func roots(agentDir string, getenv func(string) string, cwds []string) []root {
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
		d = pisession.ExpandTilde(d, home)
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, root{dir: d})
		}
	}
	add(getenv("PI_CODING_AGENT_SESSION_DIR"))
	add(settingsSessionDir(filepath.Join(agentDir, "settings.json")))
	for _, cwd := range cwds {
		add(projectDir(cwd, home))
	}
	return out
}

// currentRoots returns the roots with the project dirs (projectDir) of the
// cwds of the indexed sessions, and those cwds; they become ix's roots,
// which Watch reads.
func (ix *Index) currentRoots(ctx context.Context) ([]root, []string, error) {
	cwds, err := texts(ctx, ix.wdb, "cwds", `SELECT DISTINCT cwd FROM files WHERE cwd != '' ORDER BY cwd`)
	if err != nil {
		return nil, nil, err
	}
	rs := roots(ix.o.AgentDir, ix.o.Getenv, cwds)
	ix.rootsMu.Lock()
	ix.roots = rs
	ix.rootsMu.Unlock()
	return rs, cwds, nil
}

// rootList returns ix's roots as last found.
func (ix *Index) rootList() []root {
	ix.rootsMu.Lock()
	defer ix.rootsMu.Unlock()
	return ix.roots
}

// projectDir is the session dir a project's own settings name: pi 0.73.1
// merges <cwd>/.pi/settings.json over the global settings, and a session
// started in cwd without PI_CODING_AGENT_SESSION_DIR or --session-dir is
// written, flat, into its "sessionDir" (tilde-expanded; a relative one is
// relative to cwd, where pi runs). "" when there is none. piweb learns of
// a cwd from the headers of the sessions it indexed, so a project whose
// sessions all went to such a dir from its first one stays unknown.
func projectDir(cwd, home string) string {
	if !filepath.IsAbs(cwd) {
		return ""
	}
	d := settingsSessionDir(filepath.Join(cwd, ".pi", "settings.json"))
	if d == "" {
		return ""
	}
	if d = pisession.ExpandTilde(d, home); !filepath.IsAbs(d) {
		d = filepath.Join(cwd, d)
	}
	return d
}

// settingsSessionDir reads "sessionDir" from a settings.json; "" when
// absent, not a string, or unreadable.
func settingsSessionDir(path string) string {
	b, err := os.ReadFile(path)
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
	// fid is the file's identity when scan stat'd it (statOK).
	fid    fileID
	statOK bool
}

// discover lists the session files of the roots. Files of the tree come in
// the order pi's listAll reads them (pisession.SessionFiles: folders and
// files by name), which decides the order of sessions with equal modified
// times. dirs are the folders to watch.
func discover(rs []root) (files []found, dirs []string) { return scan(rs, false) }

// folder is a directory whose *.jsonl files are session files.
type folder struct {
	dir     string
	listAll bool
}

// scan is discover that, with stat, also stats every file. The folders are
// read, and their files stat'd relative to them, on a few goroutines: a
// warm ls does little else, and the system calls are most of its time.
func scan(rs []root, stat bool) (files []found, dirs []string) {
	folders, dirs := foldersOf(rs)
	lists := make([][]found, len(folders))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(4, len(folders)) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(folders)); i = next.Add(1) - 1 {
				lists[i] = readFolder(folders[i], stat)
			}
		})
	}
	wg.Wait()
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	files = make([]found, 0, n)
	seen := make(map[string]bool, n)
	for _, l := range lists {
		for _, f := range l {
			if !seen[f.path] {
				seen[f.path] = true
				files = append(files, f)
			}
		}
	}
	return files, dirs
}

// foldersOf lists the folders of the roots whose *.jsonl files are
// session files, and every folder to watch (the roots too), without
// reading the folders.
func foldersOf(rs []root) (folders []folder, dirs []string) {
	for _, r := range rs {
		dirs = append(dirs, r.dir)
		if !r.tree {
			folders = append(folders, folder{r.dir, false})
			continue
		}
		ents, _ := os.ReadDir(r.dir) // sorted by name, as pi's readdir
		for _, d := range ents {
			if d.IsDir() || d.Type()&os.ModeSymlink != 0 { // pi 1.6 follows symlinks
				dirs = append(dirs, filepath.Join(r.dir, d.Name()))
				folders = append(folders, folder{dirs[len(dirs)-1], true})
			}
		}
	}
	return folders, dirs
}

// readFolder lists the *.jsonl files of a folder by name, stat'ing them
// with stat relative to the folder, which spares the kernel the walk of
// the whole path. A path is the folder, a slash and the name, which is
// what filepath.Join gives for a clean folder and a plain name.
func readFolder(f folder, stat bool) []found {
	d, err := os.Open(f.dir)
	if err != nil {
		return nil // pi skips folders it cannot read
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	slices.Sort(names)
	dirfd := -1
	if stat {
		dirfd = int(d.Fd())
	}
	out := make([]found, 0, len(names))
	for _, n := range names {
		if !strings.HasSuffix(n, ".jsonl") {
			continue
		}
		fd := found{path: f.dir + string(filepath.Separator) + n, listAll: f.listAll}
		if stat {
			fd.fid, fd.statOK = statAt(dirfd, n)
		}
		out = append(out, fd)
	}
	return out
}

// readDir lists a directory in directory order; nil when it cannot be read.
func readDir(dir string) []os.DirEntry {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	ents, _ := f.ReadDir(-1)
	return ents
}
