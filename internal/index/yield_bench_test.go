package index

import (
	"context"
	"sync"
	"testing"
	"time"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
)

// BenchmarkUpdateDuringTextPass is how long a small session's update (a
// live session's appended line) takes while a sync writes the text of a
// generated corpus of two sessions, 48 MB: update-ms, against sync-s, the whole sync (listing and text),
// which the update waited for when the pass held the writer throughout
// (means over the iterations).
func BenchmarkUpdateDuringTextPass(b *testing.B) {
	dir := genCorpus(b, corpus.Options{Files: 2, Bytes: 48 << 20, Seed: 3})
	small := writeWords(b, dir, "small", "a live session")
	var updates, syncs time.Duration
	n := 0
	for b.Loop() {
		ix := benchIndex(b, dir)
		var once sync.Once
		running := make(chan struct{})
		ix.afterPart = func() { once.Do(func() { close(running) }) }
		start := time.Now()
		synced := make(chan error, 1)
		go func() { _, err := ix.Sync(context.Background(), true); synced <- err }()
		<-running
		testkit.AppendFile(b, small, line("late", "smalla", "user", "one more line", 1))
		t := time.Now()
		if err := ix.Update(context.Background(), small); err != nil {
			b.Fatal(err)
		}
		updates += time.Since(t)
		if err := <-synced; err != nil {
			b.Fatal(err)
		}
		syncs += time.Since(start)
		n++
		ix.Close()
	}
	b.ReportMetric(float64(updates.Microseconds())/1000/float64(n), "update-ms")
	b.ReportMetric(syncs.Seconds()/float64(n), "sync-s")
}
