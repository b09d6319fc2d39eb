package pisession

import (
	"cmp"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// AgentDir returns pi's agent directory: PI_CODING_AGENT_DIR when set and
// non-empty (only "~" and "~/" are expanded, the path is not made absolute),
// else ~/.pi/agent.
func AgentDir(getenv func(string) string) string {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
		return ExpandTilde(d, home)
	}
	return filepath.Join(home, ".pi", "agent")
}

// ExpandTilde expands a path the way pi expands PI_CODING_AGENT_DIR and
// sessionDir settings: only "~" and a "~/" prefix, nothing else.
func ExpandTilde(p, home string) string {
	switch {
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(home, p[2:])
	}
	return p
}

// EncodeCwd returns the folder name pi uses for a cwd under sessions/:
// one leading slash or backslash dropped, every / \ : turned into -, and
// the result wrapped in "--". It cannot be reversed; read cwd from headers.
func EncodeCwd(cwd string) string {
	if strings.HasPrefix(cwd, "/") || strings.HasPrefix(cwd, `\`) {
		cwd = cwd[1:]
	}
	return "--" + strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(cwd) + "--"
}

// SessionFiles returns the files pi's listAll reads: every *.jsonl in every
// immediate subdirectory of <agentDir>/sessions, in name order (Node's
// readdir sorts names bytewise, and that order decides ties in pi's
// listing).
//
// A warm listing does little else than this and a stat per file, so the
// project folders are read for names only, and a path is the clean folder
// path, a slash and the name (what filepath.Join gives for a plain name).
func SessionFiles(agentDir string) []string {
	root := filepath.Join(agentDir, "sessions")
	var files []string
	for _, d := range DirEntries(root) {
		if !d.IsDir() && d.Type()&os.ModeSymlink == 0 {
			continue // pi 1.6 follows symlinks to folders too
		}
		dir := filepath.Join(root, d.Name())
		names := DirNames(dir)
		slices.Sort(names)
		for _, n := range names {
			if strings.HasSuffix(n, ".jsonl") {
				files = append(files, dir+string(filepath.Separator)+n)
			}
		}
	}
	return files
}

// DirNames lists the names in a directory, unsorted; nil when it cannot be
// read.
func DirNames(dir string) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	return names
}

// DirEntries lists a directory sorted by name, ignoring errors: pi skips
// folders it cannot read.
func DirEntries(dir string) []os.DirEntry {
	ents, _ := os.ReadDir(dir)
	return ents
}

// ListAll reads every session file as pi's SessionManager.listAll does and
// returns their metadata, newest modified first. Files pi would leave out
// are left out. It reads every file; an index (as piweb's) answers the
// same faster.
func ListAll(agentDir string) []Info {
	return ListFiles(SessionFiles(agentDir))
}

// ListFiles reads the given files in parallel and returns pi's listing of
// them in pi 1.6's listAll order: the files ordered as candidates
// (SortCandidates), then stably by modified time, newest first.
func ListFiles(files []string) []Info {
	files = slices.Clone(files)
	mtimes := make(map[string]float64, len(files))
	for _, f := range files {
		mtimes[f] = math.Inf(-1)
		if st, err := os.Stat(f); err == nil {
			mtimes[f] = MtimeMs(st.ModTime())
		}
	}
	SortCandidates(files, func(f string) float64 { return mtimes[f] })
	infos := make([]*Info, len(files))
	var wg sync.WaitGroup
	work := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range work {
				infos[i] = fileInfo(files[i])
			}
		})
	}
	for i := range files {
		work <- i
	}
	close(work)
	wg.Wait()
	var out []Info
	for _, in := range infos {
		if in != nil {
			out = append(out, *in)
		}
	}
	slices.SortStableFunc(out, func(a, b Info) int { return cmp.Compare(b.Modified, a.Modified) })
	return out
}

// MtimeMs is Node's stats.mtimeMs for a modification time.
func MtimeMs(t time.Time) float64 { return MtimeMsNs(t.UnixNano()) }

// MtimeMsNs is MtimeMs for a time in ns since the epoch.
func MtimeMsNs(ns int64) float64 { return float64(ns/1e9)*1e3 + float64(ns%1e9)/1e6 }

// SortCandidates orders session files as pi 1.6's listAll orders them
// before reading: newest mtime (in ms, -Inf when stat failed) first; ties
// by base name in descending ICU collation order, which is what Node's
// localeCompare gives in the en-US locale (for pi's own file names, byte
// order).
func SortCandidates(files []string, mtimeMs func(string) float64) {
	slices.SortStableFunc(files, func(a, b string) int {
		return CompareCandidates(a, mtimeMs(a), b, mtimeMs(b))
	})
}

// CompareCandidates is SortCandidates' order for two files.
func CompareCandidates(a string, am float64, b string, bm float64) int {
	if c := cmp.Compare(bm, am); c != 0 || am != bm {
		return c
	}
	return compareNames(filepath.Base(b), filepath.Base(a))
}

// compareNames is String.prototype.localeCompare in en-US; pi's names
// (ASCII digits, letters, '-', '_', '.') of equal length with no upper
// case compare bytewise without the collator.
func compareNames(a, b string) int {
	if len(a) == len(b) && plainName(a) && plainName(b) {
		return strings.Compare(a, b)
	}
	collatorMu.Lock()
	defer collatorMu.Unlock()
	return collator.CompareString(a, b)
}

var (
	collatorMu sync.Mutex
	collator   = collate.New(language.AmericanEnglish)
)

// plainName reports whether s has only lower-case letters, digits and the
// characters pi's file names use, in which collation and byte order agree
// position by position.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func fileInfo(path string) *Info {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	in, ok := parseRecords(data).Info(path, st.ModTime())
	if !ok {
		return nil
	}
	return &in
}
