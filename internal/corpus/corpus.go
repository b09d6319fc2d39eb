package corpus

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// Options sizes a corpus.
type Options struct {
	// Files is the number of session files, Bytes their approximate total.
	Files int
	Bytes int64
	// BigFiles files of BigBytes each are part of the total (the 100 MB+
	// sessions that make every existing pi UI slow). Zero BigBytes means
	// none.
	BigFiles int
	BigBytes int64
	// Projects is the number of project folders under sessions/.
	Projects int
	Seed     uint64
	// Linear leaves the branches out: every entry continues the one
	// before, as in a long session nobody moved back in, whose branch is
	// the whole file.
	Linear bool
}

// Stats describes what Generate wrote.
type Stats struct {
	Files   int
	Bytes   int64
	Entries int
}

// base is the time of the first generated session.
var epoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// Generate writes the corpus as an agent dir: dir/sessions/<project>/*.jsonl.
// It overwrites files of the same name and leaves other files alone.
func Generate(dir string, o Options) (Stats, error) {
	o.Projects = cmp.Or(o.Projects, max(1, o.Files/100))
	sizes := plan(o)
	plans := make([]filePlan, len(sizes))
	for i := range plans {
		plans[i] = planFile(dir, o, i, sizes[i])
	}
	var (
		mu    sync.Mutex
		st    Stats
		first error
		wg    sync.WaitGroup
	)
	work := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range work {
				n, ents, err := writeFile(plans, i, o.Seed)
				mu.Lock()
				st.Files++
				st.Bytes += n
				st.Entries += ents
				if err != nil && first == nil {
					first = err
				}
				mu.Unlock()
			}
		})
	}
	for i := range plans {
		work <- i
	}
	close(work)
	wg.Wait()
	return st, first
}

// plan returns the target size of every file: the big ones first, the rest
// log-normally distributed over the remaining bytes, as real session sizes
// are (many short chats, a long tail of long ones).
func plan(o Options) []int64 {
	sizes := make([]int64, o.Files)
	r := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	big := min(o.BigFiles, o.Files)
	if o.BigBytes == 0 {
		big = 0
	}
	rest := o.Bytes - int64(big)*o.BigBytes
	weights := make([]float64, o.Files)
	var sum float64
	for i := big; i < o.Files; i++ {
		weights[i] = math.Exp(r.NormFloat64() * 1.2)
		sum += weights[i]
	}
	for i := range sizes {
		if i < big {
			sizes[i] = o.BigBytes
			continue
		}
		sizes[i] = max(600, int64(float64(max(rest, 0))*weights[i]/sum))
	}
	// Spread the big files among the others so they are not all in the
	// first project.
	for i := range big {
		j := (i*7919 + 13) % o.Files
		sizes[i], sizes[j] = sizes[j], sizes[i]
	}
	return sizes
}

// filePlan is what other files need to know about a file: its path (forks
// name their parent by path) and its header.
type filePlan struct {
	path, id, cwd string
	created       time.Time
	size          int64
	parent        int // index of the forked-from file, -1 for none
	linear        bool
}

func planFile(dir string, o Options, i int, size int64) filePlan {
	r := fileRand(o.Seed, i, 1)
	proj := r.IntN(o.Projects)
	cwd := fmt.Sprintf("/home/user/src/project-%03d", proj)
	created := epoch.Add(time.Duration(i)*7*time.Minute + time.Duration(r.IntN(300_000))*time.Millisecond)
	id := uuid7(r, created)
	name := created.Format("2006-01-02T15-04-05.000Z")
	name = name[:19] + "-" + name[20:] + "_" + id + ".jsonl"
	folder := "--" + cwd[1:] + "--"
	folder = filepath.Join(dir, "sessions", replaceSlash(folder))
	parent := -1
	if i > 0 && r.IntN(20) == 0 {
		parent = r.IntN(i)
	}
	return filePlan{path: filepath.Join(folder, name), id: id, cwd: cwd, created: created, size: size, parent: parent,
		linear: o.Linear}
}

func replaceSlash(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '/' {
			b[i] = '-'
		}
	}
	return string(b)
}

// fileRand returns the generator of one aspect of one file.
func fileRand(seed uint64, i int, aspect uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed^uint64(i)*0x9e3779b97f4a7c15, aspect))
}

// uuid7 returns a UUID v7 string with the given time, like pi's session ids.
func uuid7(r *rand.Rand, t time.Time) string {
	ms := uint64(t.UnixMilli())
	a, b := r.Uint64(), r.Uint64()
	return fmt.Sprintf("%08x-%04x-7%03x-%04x-%012x", ms>>16, ms&0xffff, a&0xfff, 0x8000|(a>>12)&0x3fff, b&0xffffffffffff)
}

// writeFile writes file i and returns its size and entry count.
func writeFile(plans []filePlan, i int, seed uint64) (int64, int, error) {
	p := plans[i]
	if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
		return 0, 0, fmt.Errorf("corpus: %w", err)
	}
	f, err := os.Create(p.path)
	if err != nil {
		return 0, 0, fmt.Errorf("corpus: %w", err)
	}
	g := newGen(f, fileRand(seed, i, 2), p.created)
	g.linear = p.linear
	parent := ""
	if p.parent >= 0 {
		parent = plans[p.parent].path
	}
	g.header(p.id, p.cwd, parent)
	g.session(p.size)
	if err := g.flush(); err != nil {
		f.Close()
		return g.n, g.entries, fmt.Errorf("corpus: write %s: %w", p.path, err)
	}
	return g.n, g.entries, f.Close()
}

// Kept returns the folder name under the temp dir, first made by write
// (into name.tmp, renamed once whole) unless an earlier run left it
// there: benchmarks keep their corpora between runs.
func Kept(name string, write func(dir string) error) (string, error) {
	d := filepath.Join(os.TempDir(), name)
	if _, err := os.Stat(d); err == nil {
		return d, nil
	}
	tmp := d + ".tmp"
	os.RemoveAll(tmp)
	if err := write(tmp); err != nil {
		return "", err
	}
	return d, os.Rename(tmp, d)
}

// BenchFile returns a large realistic session file for benchmarks: the
// file $PIWEB_BENCH_FILE names (read through getenv), or one of size
// bytes generated once (deterministically) under the temp dir. The
// bench/session script runs pi's own open + buildSessionContext on the
// same file and prints the ratio.
func BenchFile(getenv func(string) string, size int64) (string, error) {
	if f := getenv("PIWEB_BENCH_FILE"); f != "" {
		return f, nil
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("piweb-bench-session-%dmb", size>>20))
	files, _ := filepath.Glob(filepath.Join(dir, "sessions", "*", "*.jsonl"))
	if len(files) == 0 {
		if _, err := Generate(dir, Options{Files: 1, Bytes: size, BigFiles: 1, BigBytes: size, Seed: 1}); err != nil {
			return "", err
		}
		files, _ = filepath.Glob(filepath.Join(dir, "sessions", "*", "*.jsonl"))
	}
	return files[0], nil
}
