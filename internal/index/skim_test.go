package index

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"piweb/internal/corpus"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// skimOptions are the options of an index of agentDir in a temporary file
// that does not exist yet.
func skimOptions(t *testing.T, agentDir string) Options {
	return Options{AgentDir: agentDir, Path: filepath.Join(t.TempDir(), "cache", "index.db"),
		Getenv: func(string) string { return "" }, Log: testkit.Log(t)}
}

// checkSkim lists agentDir with SkimListJSON and checks that it answered,
// built no index, and gave the direct scan's listing and the bytes of an
// index's ListJSON; then that the snapshot it left gives the quick answer
// with the same bytes.
func checkSkim(t *testing.T, o Options) []byte {
	t.Helper()
	got, ok, err := SkimListJSON(context.Background(), o)
	if err != nil || !ok {
		t.Fatalf("SkimListJSON: ok %v, %v", ok, err)
	}
	if _, err := os.Stat(o.Path); !os.IsNotExist(err) {
		t.Fatalf("SkimListJSON made the index file (%v)", err)
	}
	want := pisession.ListAll(o.AgentDir)
	if want == nil {
		want = []pisession.Info{}
	}
	if string(got) != listJSON(t, want) {
		t.Fatalf("skimmed listing differs from the direct scan:\n%s\n%s", got, listJSON(t, want))
	}
	ix := openTest(t, o.AgentDir)
	if j, err := ix.ListJSON(context.Background()); err != nil || !bytes.Equal(j, got) {
		t.Fatalf("skimmed listing differs from ListJSON (%v):\n%s\n%s", err, got, j)
	}
	var b bytes.Buffer
	if ok, err := WriteQuickListJSON(o, &b); !ok || err != nil || !bytes.Equal(bytes.TrimSuffix(b.Bytes(), []byte("\n")), got) {
		t.Fatalf("quick answer from the skim's snapshot (ok %v, %v):\n%s\n%s", ok, err, b.Bytes(), got)
	}
	return got
}

// TestSkimListJSON checks the listing read without an index on the
// fixtures, on pi 1.6.0's listing corpus (BOM files, falsy lines, lone CRs,
// ties; compared with pi's own recorded listAll too) and on a generated
// corpus, and that it stands aside once an index file exists.
func TestSkimListJSON(t *testing.T) {
	t.Parallel() // long under -race; shares nothing (TestFilterExact, which sets the tunables, is not parallel)
	t.Run("fixtures", func(t *testing.T) { checkSkim(t, skimOptions(t, fixtureAgentDir(t))) })
	t.Run("pi-1.6.0", func(t *testing.T) {
		src := filepath.Join("..", "..", "pisession", "testdata", "pi-1.6.0", "list")
		agent := pitest.ListDir(t, src)
		got := checkSkim(t, skimOptions(t, agent))
		sessions := filepath.ToSlash(filepath.Join(agent, "sessions")) + "/"
		rel := bytes.ReplaceAll(got, []byte(`"path":"`+sessions), []byte(`"path":"`))
		want := testkit.ReadFile(t, filepath.Join(src, "listAll.json"))
		if diff, err := pitest.DiffJSON(want, rel); err != nil || diff != "" {
			t.Errorf("skimmed listing (-pi 1.6.0 +skim):\n%s%v", diff, err)
		}
	})
	t.Run("corpus", func(t *testing.T) {
		dir := genCorpus(t, corpus.Options{Files: 40, Bytes: 2 << 20, BigFiles: 1, BigBytes: 512 << 10, Seed: 5})
		checkSkim(t, skimOptions(t, dir))
	})
	t.Run("index exists", func(t *testing.T) {
		dir := t.TempDir()
		writeEdgeFiles(t, dir)
		ix := openTest(t, dir)
		if _, ok, err := SkimListJSON(context.Background(), ix.o); ok || err != nil {
			t.Fatalf("SkimListJSON beside an index: ok %v, %v", ok, err)
		}
	})
}

// TestSkimChanges changes files in every way ls must notice between
// listings without an index: each listing is the direct scan's, its
// snapshot answers the next quick ls, and an index opened later (serve,
// search) lists the same from that snapshot.
func TestSkimChanges(t *testing.T) {
	dir := t.TempDir()
	proj := writeEdgeFiles(t, dir)
	o := skimOptions(t, dir)
	checkSkim(t, o)
	for _, s := range edgeChanges(t, dir) {
		t.Run(s.name, func(t *testing.T) {
			s.change()
			var b bytes.Buffer
			if ok, _ := WriteQuickListJSON(o, &b); ok {
				t.Fatal("quick answer ignores the change")
			}
			checkSkim(t, o)
		})
	}
	t.Run("index from the snapshot", func(t *testing.T) {
		testkit.AppendFile(t, filepath.Join(proj, "plain.jsonl"), line("p10", "p9", "user", "later still", 40))
		ix, err := Open(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		checkList(t, ix, dir)
	})
}

// BenchmarkSkimListJSON is a cold piweb ls --json without its process:
// every file read for its listing element, the snapshot written.
// cpu-MB/s is the same per second of CPU time (see BenchmarkColdListing).
func BenchmarkSkimListJSON(b *testing.B) {
	benchCorpusCPU(b, func(dir string) (run, done func()) {
		o := Options{AgentDir: dir, Path: filepath.Join(b.TempDir(), "index.db"), Getenv: func(string) string { return "" }, Log: testkit.Log(b)}
		return func() {
			if _, ok, err := SkimListJSON(context.Background(), o); !ok || err != nil {
				b.Fatal(ok, err)
			}
		}, func() {}
	})
}
