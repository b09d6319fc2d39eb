package index

import (
	"context"
	"log/slog"
	"runtime/debug"
	"testing"

	"piweb/internal/session"
	"piweb/internal/testkit"
)

// TestDamagedMemoryBound indexes damaged files with bad lines of up to
// 12 MB and checks the Go heap's peak against a bound on the files' size
// (issue 21: 90 MB of such files peaked at 1.5 GB). Before long lines were
// read into buffers of their size under the workers' read budget, the
// peak was 1.7 to 1.9 times the corpus; now it is about 1.1 times. The bound
// is generous: the heap is sampled and garbage not yet collected counts.
func TestDamagedMemoryBound(t *testing.T) {
	dir := damagedCorpus(t, 3, 30<<20, 12<<20)
	size := float64(corpusBytes(session.SessionFiles(dir))) / (1 << 20)
	ix := openTest(t, dir)
	ix.o.Log = slog.New(slog.DiscardHandler)
	defer debug.SetGCPercent(debug.SetGCPercent(10)) // the heap close to what is live
	p := testkit.StartPeak()
	if _, err := ix.Sync(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	heap, rss := p.Stop()
	t.Logf("corpus %.0f MB: peak heap %.0f MB, peak RSS %.0f MB", size, heap, rss)
	if limit := 1.5 * size; heap > limit {
		t.Errorf("indexing %.0f MB of damaged files peaked at %.0f MB of heap, want at most %.0f", size, heap, limit)
	}
}
