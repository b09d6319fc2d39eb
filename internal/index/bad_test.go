package index

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"piweb/internal/testkit"
	"piweb/pisession"
)

// hookFile calls before on the first read of a file.
type hookFile struct {
	readFile
	once   sync.Once
	before func()
}

func (h *hookFile) ReadAt(b []byte, off int64) (int, error) {
	h.once.Do(h.before)
	return h.readFile.ReadAt(b, off)
}

// hookOpen makes ix run fn before the first read of path.
func hookOpen(ix *Index, path string, fn func()) {
	ix.open = func(p string) (readFile, error) {
		f, err := openFile(p)
		if err != nil || p != path {
			return f, err
		}
		return &hookFile{readFile: f, before: fn}, nil
	}
}

func problemsOf(t *testing.T, ix *Index, path string) FileProblem {
	t.Helper()
	st, err := ix.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range st.Problems {
		if p.Path == path {
			return p
		}
	}
	return FileProblem{}
}

// withUnreadable is an index over the edge files (in dir) that cannot
// open bad, one of them.
func withUnreadable(t *testing.T) (ix *Index, dir, bad string) {
	dir = t.TempDir()
	bad = filepath.Join(writeEdgeFiles(t, dir), "plain.jsonl")
	ix = openTest(t, dir)
	ix.open = func(p string) (readFile, error) {
		if p == bad {
			return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission}
		}
		return openFile(p)
	}
	return ix, dir, bad
}

func TestUnreadable(t *testing.T) {
	ix, dir, bad := withUnreadable(t)
	syncAll(t, ix)
	if p := problemsOf(t, ix, bad); !strings.Contains(p.Error, "permission denied") {
		t.Errorf("problem of unreadable file: %+v", p)
	}
	infos, err := ix.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if in.Path == bad {
			t.Errorf("unreadable file listed")
		}
	}
	if len(infos) < 5 {
		t.Errorf("only %d files listed: indexing stopped at the bad file?", len(infos))
	}
	// Readable again: listed again without any change to the file.
	ix.open = openFile
	checkList(t, ix, dir)
}

func TestNotRegular(t *testing.T) {
	dir := t.TempDir()
	proj := writeEdgeFiles(t, dir)
	fifo := filepath.Join(proj, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no fifo:", err)
	}
	os.Mkdir(filepath.Join(proj, "dir.jsonl"), 0o755)
	os.Symlink("/nonexistent", filepath.Join(proj, "dangling.jsonl"))
	ix := openTest(t, dir)
	syncAll(t, ix) // must not hang on the FIFO
	if p := problemsOf(t, ix, fifo); p.Error == "" {
		t.Errorf("no problem for FIFO")
	}
	os.Remove(fifo) // the direct scan would block on it
	checkList(t, ix, dir)
}

func TestDeletedMidParse(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(writeEdgeFiles(t, dir), "named.jsonl")
	ix := openTest(t, dir)
	hookOpen(ix, p, func() { os.Remove(p) })
	syncAll(t, ix)
	ix.open = openFile
	checkList(t, ix, dir)
}

func TestReplacedMidParse(t *testing.T) {
	dir := t.TempDir()
	proj := writeEdgeFiles(t, dir)
	p := filepath.Join(proj, "named.jsonl")
	ix := openTest(t, dir)
	syncAll(t, ix)
	testkit.AppendFile(t, p, line("z1", "a3", "user", "growing", 20))
	hookOpen(ix, p, func() {
		// On the indexer's goroutine: an error, not a fatal one.
		tmp := filepath.Join(proj, "tmp")
		if err := os.WriteFile(tmp, []byte(edgeFiles["plain"]), 0o644); err != nil {
			t.Error(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			t.Error(err)
		}
	})
	syncAll(t, ix)
	ix.open = openFile
	checkList(t, ix, dir)
	syncAll(t, ix)
	checkBranch(t, ix, p)
}

// TestConcurrentWriter indexes a file while another goroutine appends to it
// in pieces that cut lines anywhere, as a reader racing pi would see it.
func TestConcurrentWriter(t *testing.T) {
	dir := t.TempDir()
	var all strings.Builder
	all.WriteString(hdr + "\n")
	parent := ""
	for i := range 300 {
		id := fmt.Sprintf("e%03d", i)
		all.WriteString(line(id, parent, []string{"user", "assistant"}[i%2], fmt.Sprintf("word%d common", i), i%60))
		parent = id
	}
	data := all.String()
	p := writeSession(t, dir, "live", "")
	ix := openTest(t, dir)
	done := make(chan bool)
	go func() {
		r := rand.New(rand.NewPCG(1, 2))
		for off := 0; off < len(data); {
			n := min(len(data)-off, 1+r.IntN(700))
			testkit.AppendFile(t, p, data[off:off+n])
			off += n
		}
		close(done)
	}()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		if _, err := ix.Sync(context.Background(), true); err != nil {
			t.Fatal(err)
		}
	}
	syncAll(t, ix)
	checkList(t, ix, dir)
	checkBranch(t, ix, p)
	if got := search(t, ix, Query{Text: "word299"}); !got["e299"] {
		t.Errorf("last entry not found: %v", got)
	}
}

// TestEnormousLine indexes a 16 MB line: its listing is whole, and its
// text is searchable up to pisession.MaxSearchText (8 MB: FTS5 holds about
// 20 times a row's text while it indexes it, and the index's peak is
// bounded whatever the corpus, issue 21), not beyond.
func TestEnormousLine(t *testing.T) {
	t.Parallel() // the package's longest tests, with an index each, side by side
	dir := t.TempDir()
	pad := strings.Repeat("lorem ipsum dolor ", (pisession.MaxSearchText-64<<10)/18)
	big := pad + "needle " + pad + "haystack"
	writeSession(t, dir, "big", hdr+"\n"+line("b1", "", "user", big, 1))
	ix := openTest(t, dir)
	syncAll(t, ix)
	checkList(t, ix, dir)
	if got := search(t, ix, Query{Text: "needle"}); !got["b1"] {
		t.Errorf("word at the end of the searchable first 8 MB of a 16 MB line not found: %v", got)
	}
	if got := search(t, ix, Query{Text: "haystack"}); got["b1"] {
		t.Errorf("word beyond the searchable first 8 MB of a 16 MB line found: %v", got)
	}
}

// TestManyEntries indexes a file of 100,000 small entries (the million
// entry case is BenchmarkMillionEntries).
func TestManyEntries(t *testing.T) {
	t.Parallel() // the package's longest tests, with an index each, side by side
	dir := t.TempDir()
	p := writeMany(t, dir, 100_000)
	ix := openTest(t, dir)
	syncAll(t, ix)
	checkList(t, ix, dir)
	checkBranch(t, ix, p)
}

// writeMany writes a session of n entries in one chain.
func writeMany(t testing.TB, dir string, n int) string {
	f, p := createSession(t, dir, "many")
	defer f.Close()
	w := io.Writer(f)
	fmt.Fprintln(w, hdr)
	for i := range n {
		parent := `"` + fmt.Sprintf("m%d", i-1) + `"`
		if i == 0 {
			parent = "null"
		}
		fmt.Fprintf(w, `{"type":"message","id":"m%d","parentId":%s,"timestamp":"2026-01-02T03:04:05.000Z","message":{"role":"user","content":"entry %d","timestamp":1}}`+"\n", i, parent, i)
	}
	return p
}

func TestRebuildBadIndex(t *testing.T) {
	dir := t.TempDir()
	writeEdgeFiles(t, dir)
	for name, spoil := range map[string]func(path string){
		"garbage": func(p string) { os.WriteFile(p, []byte("this is not a database, just bytes"), 0o644) },
		"old-version": func(p string) {
			db, _ := sql.Open("sqlite", p)
			db.Exec(`PRAGMA user_version = 1`)
			db.Close()
		},
		"other-agent": func(p string) {
			db, _ := sql.Open("sqlite", p)
			db.Exec(`UPDATE meta SET value = '/elsewhere' WHERE key = 'agentDir'`)
			db.Close()
		},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "index.db")
			o := Options{AgentDir: dir, Path: path, Getenv: func(string) string { return "" }, Log: testkit.Log(t)}
			ix, err := Open(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			syncAll(t, ix)
			ix.Close()
			spoil(path)
			ix, err = Open(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			checkList(t, ix, dir)
		})
	}
}
