package index

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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
	// fid is the file's identity when scan stat'd it (statOK).
	fid    fileID
	statOK bool
}

// discover lists the session files of the roots. Files of the tree come in
// the order pi's listAll reads them (session.SessionFiles: folders and
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
	var folders []folder
	for _, r := range rs {
		dirs = append(dirs, r.dir)
		if !r.tree {
			folders = append(folders, folder{r.dir, false})
			continue
		}
		ents, _ := os.ReadDir(r.dir) // sorted by name, as pi's readdir
		for _, d := range ents {
			if d.IsDir() {
				dirs = append(dirs, filepath.Join(r.dir, d.Name()))
				folders = append(folders, folder{dirs[len(dirs)-1], true})
			}
		}
	}
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
	seen := map[string]bool{}
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
	var out []found
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
