package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"piweb/internal/corpus"
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
// /api/sessions answers the page, and rss-listed-MB, the resident set
// above the start once it is cached.
//
//	go test ./internal/catalog -run '^$' -bench MemManyFiles -benchtime 1x
func BenchmarkMemManyFiles(b *testing.B) {
	n := 25000
	if s, err := strconv.Atoi(os.Getenv("PIWEB_BENCH_SESSIONS")); err == nil && s > 0 {
		n = s
	}
	dir := manyFiles(b, n)
	var heap, rss, after, body, listed float64
	for b.Loop() {
		p := testkit.StartPeak()
		c, err := Open(context.Background(), Options{AgentDir: dir, Temporary: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
		testkit.Eventually(b, func() error {
			if st := c.State(); !st.Ready {
				return fmt.Errorf("%d files' text not indexed", st.TextBehind)
			}
			return nil
		}, 30*time.Minute, "the index's search text")
		h, r := p.Stop()
		heap, rss, after = max(heap, h), max(rss, r), max(after, p.Held())
		size, held := listAll(b, c)
		body, listed = max(body, size), max(listed, after+held)
		c.Close()
	}
	b.ReportMetric(float64(n), "sessions")
	b.ReportMetric(heap, "peak-heap-MB")
	b.ReportMetric(rss, "peak-rss-MB")
	b.ReportMetric(after, "rss-after-MB")
	b.ReportMetric(body, "listing-MB")
	b.ReportMetric(listed, "rss-listed-MB")
}

// listAll answers the whole listing once, as GET /api/sessions does for
// the page's sidebar (cached, gzipped), and returns its size and what it
// added to the resident set (MB).
func listAll(b *testing.B, c *Catalog) (size, held float64) {
	p := testkit.StartPeak()
	var lc ListCache
	body, _, err := lc.Get("all", true, ListSource{Gen: func() Gen { return Gen{Catalog: c.Generation()} },
		List:  func() ([]Meta, int, error) { ms, n := c.list(ListQuery{}, nil); return ms, n, nil },
		Links: func(Meta) Links { return Links{} }})
	if err != nil {
		b.Fatal(err)
	}
	lc.Wait()
	p.Stop()
	return float64(len(body)) / (1 << 20), p.Held()
}

// manyFiles is a corpus of n sessions of ~16 KB, generated once.
func manyFiles(tb testing.TB, n int) string {
	d := filepath.Join(os.TempDir(), "piweb-bench-many-"+strconv.Itoa(n))
	if _, err := os.Stat(d); err == nil {
		return d
	}
	tmp := d + ".tmp"
	os.RemoveAll(tmp)
	if _, err := corpus.Generate(tmp, corpus.Options{Files: n, Bytes: int64(n) * 16 << 10, Seed: 22}); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, d); err != nil {
		tb.Fatal(err)
	}
	return d
}
