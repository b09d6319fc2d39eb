package catalog_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"

	"piweb/internal/catalog"
	"piweb/internal/catalog/catalogtest"
	"piweb/internal/corpus"
	"piweb/internal/memlimit"
	"piweb/internal/testkit"
)

// BenchmarkMemManyFiles opens the catalog of a corpus of many small
// sessions cold, as serve does, and waits for the listing and the search
// text: issue 21 wants the index's peak at most 300 MB of RSS whatever
// the corpus, and issue 22's push benchmark holds this catalog (25,000
// sessions of ~16 KB, the default here; PIWEB_BENCH_SESSIONS sets the
// count). The corpus is generated once under $TMPDIR. It reports
// peak-heap-MB and peak-rss-MB above the start (testkit.StartPeak), and
// rss-after-MB, the resident set above the start once the text is
// indexed; then listing-MB, the size of the whole listing as GET
// /api/sessions answers it, and rss-listed-MB, the resident set above the
// start (after a GC) once the sidebar's first page is cached and the whole
// listing written (listAll).
//
//	go test ./internal/catalog -run '^$' -bench MemManyFiles -benchtime 1x
//
// It runs under the soft memory limit serve sets (internal/memlimit),
// unless GOMEMLIMIT sets one. PIWEB_BENCH_HEAP names a folder for heap
// profiles (open.pprof, listed.pprof; go tool pprof -top).
func BenchmarkMemManyFiles(b *testing.B) {
	n := testkit.EnvInt("PIWEB_BENCH_SESSIONS", 25000)
	dir := manyFiles(b, n)
	memlimit.Set(os.Getenv) // as serve does
	var peaks testkit.Peaks
	var after, body, listed float64
	for b.Loop() {
		p := testkit.StartPeak()
		c, err := catalog.Open(context.Background(), catalog.Options{AgentDir: dir, Temporary: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
		catalogtest.AwaitText(b, c)
		peaks.Note(p.Stop())
		heapProfile(b, "open")
		after = max(after, p.Held())
		size := listAll(b, c)
		body, listed = max(body, size), max(listed, p.Held())
		heapProfile(b, "listed")
		c.Close()
	}
	b.ReportMetric(float64(n), "sessions")
	peaks.Report(b)
	b.ReportMetric(after, "rss-after-MB")
	b.ReportMetric(body, "listing-MB")
	b.ReportMetric(listed, "rss-listed-MB")
}

// listAll answers the listing as serve answers the page's sidebar: its
// first page (cached, gzipped), and the whole listing once, streamed as
// GET /api/sessions without a limit writes it. It returns the whole
// listing's size (MB).
func listAll(b *testing.B, c *catalog.Catalog) (size float64) {
	var lc catalog.ListCache
	archived := map[string]bool{}
	ctx := context.Background()
	src := catalog.ListSource{Gen: func() catalog.Gen { return catalog.Gen{Catalog: c.Generation()} },
		List: func() (catalog.Listed, error) {
			return c.Page(ctx, catalog.ListQuery{Sort: "modified", Limit: sidebarPage, Counts: true,
				Keep: func(m catalog.Meta) bool { return !archived[m.Key] }})
		},
		Links:    func(catalog.Meta) catalog.Links { return catalog.Links{} },
		Archived: func(l catalog.Listed) int { return l.Left }}
	if _, _, err := lc.Get("page", true, src); err != nil {
		b.Fatal(err)
	}
	lc.Wait()
	var n countWriter
	src.List = func() (catalog.Listed, error) { return c.Page(ctx, catalog.ListQuery{Sort: "modified"}) }
	if err := catalog.StreamList(&n, false, src, func() {}); err != nil {
		b.Fatal(err)
	}
	return float64(n) / (1 << 20)
}

// sidebarPage is how many sessions the page's sidebar asks for at first
// (PAGE in internal/web/static/js/state.js).
const sidebarPage = 200

// countWriter counts what is written to it.
type countWriter int

func (w *countWriter) Write(b []byte) (int, error) { *w += countWriter(len(b)); return len(b), nil }

// manyFiles is a corpus of n sessions of ~16 KB, generated once.
func manyFiles(tb testing.TB, n int) string {
	d, err := corpus.Kept("piweb-bench-many-"+strconv.Itoa(n), func(dir string) error {
		_, err := corpus.Generate(dir, corpus.Options{Files: n, Bytes: int64(n) * 16 << 10, Seed: 22})
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// heapProfile writes the live heap to $PIWEB_BENCH_HEAP/name.pprof.
func heapProfile(b *testing.B, name string) {
	d := os.Getenv("PIWEB_BENCH_HEAP")
	if d == "" {
		return
	}
	runtime.GC()
	f, err := os.Create(filepath.Join(d, name+".pprof"))
	if err != nil {
		b.Fatal(err)
	}
	pprof.WriteHeapProfile(f)
	f.Close()
}
