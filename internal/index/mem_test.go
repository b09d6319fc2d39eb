package index

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestDamagedMemoryBound indexes damaged files with bad lines of up to
// 12 MB and checks the Go heap's peak against a bound on the files' size
// (issue 21: 90 MB of such files peaked at 1.5 GB). Before long lines were
// read into buffers of their size under the workers' read budget, the
// peak was 1.7 to 1.9 times the corpus; now it is about 1.1 times. The bound
// is generous: the heap is sampled and garbage not yet collected counts.
func TestDamagedMemoryBound(t *testing.T) {
	dir := damagedCorpus(t, 3, 30<<20, 12<<20)
	_, size, heap := syncPeak(t, dir, pisession.SessionFiles(dir))
	if limit := 1.5 * size; heap > limit {
		t.Errorf("indexing %.0f MB of damaged files peaked at %.0f MB of heap, want at most %.0f", size, heap, limit)
	}
}

// syncPeak opens an index of agentDir and returns it, the size of files
// and the heap's peak (GOGC 10: close to what is live) in its cold Sync,
// in MB.
func syncPeak(t *testing.T, agentDir string, files []string) (ix *Index, size, heap float64) {
	size = float64(corpusBytes(files)) / (1 << 20)
	ix = openTest(t, agentDir)
	ix.o.Log = slog.New(slog.DiscardHandler)
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	p := testkit.StartPeak()
	if _, err := ix.Sync(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	heap, rss := p.Stop()
	t.Logf("files %.0f MB: peak heap %.0f MB, peak RSS %.0f MB", size, heap, rss)
	return ix, size, heap
}

// TestHugeFirstMessage indexes a session whose first user message is a
// 16 MB line (issue 21: a 52 MB one peaked at 1.4 GB of RSS, the files row
// holding it three times and rewritten by every text-pass part). The row
// now holds its head; the whole message is kept once and pi's listing
// still gives all of it. The heap peaked at 5 times the file before, 2.5
// times now (the line's read buffer and its text, which the listing pass
// must hold at once), up to 3 under -race in CI: the bound, 4, sits
// between the two.
func TestHugeFirstMessage(t *testing.T) {
	agentDir := filepath.Join(t.TempDir(), "agent")
	path, err := corpus.Huge(agentDir, corpus.HugeOptions{Bytes: 16 << 20, Role: "user", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ix, size, heap := syncPeak(t, agentDir, []string{path})
	if limit := 4 * size; heap > limit {
		t.Errorf("indexing a %.0f MB session peaked at %.0f MB of heap, want at most %.0f", size, heap, limit)
	}
	var row int
	if err := ix.db.QueryRow(`SELECT length(body) + length(info_json) + length(first_message) FROM files`).Scan(&row); err != nil || row > 64<<10 {
		t.Errorf("the files row holds %d bytes of listing (%v), want the first message's head only", row, err)
	}
	want := hugeFirst(t, path)
	infos, err := ix.List(context.Background())
	if err != nil || len(infos) != 1 || infos[0].FirstMessage != want {
		t.Fatalf("List: %d sessions (%v), first message intact: %v", len(infos), err, len(infos) == 1 && infos[0].FirstMessage == want)
	}
	got, err := ix.ListJSON(context.Background())
	wantJSON, _ := MarshalList(infos)
	if err != nil || !bytes.Equal(got, wantJSON) {
		t.Errorf("ListJSON differs from the listing (%v): %d bytes, want %d", err, len(got), len(wantJSON))
	}
	// An append is read alone: the row's head stands for the message,
	// which stays as it was kept.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line("later1", "", "user", "a later question", 2e12) + "\n")
	f.Close()
	infos, err = ix.List(context.Background())
	if err != nil || len(infos) != 1 || infos[0].FirstMessage != want || infos[0].MessageCount < 2 {
		t.Errorf("List after an append: %d sessions (%v), first message intact: %v", len(infos), err, len(infos) == 1 && infos[0].FirstMessage == want)
	}
}

// hugeFirst is the first user message of the file, as the session parser
// reads it.
func hugeFirst(t *testing.T, path string) string {
	data := testkit.ReadFile(t, path)
	in, _ := pisession.Parse(data).Info(path, time.Now())
	if len(in.FirstMessage) < 16<<20 {
		t.Fatalf("corpus: first message of %d bytes", len(in.FirstMessage))
	}
	return in.FirstMessage
}

// TestHugeLineDefaultGC indexes a session whose first user message is a
// 16 MB line with the collector's default pacing (GOGC 100), which lets
// the heap grow to twice what its last cycle found live: a cycle that saw
// the line and its decoded text let the heap reach 3.3 times the file
// before the next one (52 MB line: 197 MB of heap, 400 MB of RSS with
// SQLite's memory; issue 21 wants at most 300). An update that read a
// huge line gives its memory back once applied, so the heap stays near
// what is live.
func TestHugeLineDefaultGC(t *testing.T) {
	agentDir := filepath.Join(t.TempDir(), "agent")
	path, err := corpus.Huge(agentDir, corpus.HugeOptions{Bytes: 16 << 20, Role: "user", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ix := openTest(t, agentDir)
	ix.o.Log = slog.New(slog.DiscardHandler)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	size := float64(corpusBytes([]string{path})) / (1 << 20)
	p := testkit.StartPeak()
	if _, err := ix.Sync(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	heap, rss := p.Stop()
	t.Logf("file %.0f MB: peak heap %.0f MB, peak RSS %.0f MB", size, heap, rss)
	// 2.5x without the race detector, 3x with it (its runtime's own
	// allocations); 4x before the memory was given back.
	if limit := 3.5 * size; heap > limit {
		t.Errorf("indexing a %.0f MB session peaked at %.0f MB of heap, want at most %.0f", size, heap, limit)
	}
}
