package index

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/corpus"
)

// buildCorpus is a corpus whose cold Sync is a bulk pass with a big file
// in parts and many commits; the caller restores the sizes.
func buildCorpus(t *testing.T) string {
	t.Helper()
	textPart, bulkBytes, heldMax = 64<<10, 256<<10, 32<<10
	dir := genCorpus(t, corpus.Options{Files: 12, Bytes: 512 << 10, Seed: 7})
	writeBig(t, dir, 256<<10)
	return dir
}

// TestBuild: a cold Sync builds without journals (build.go) and ends with
// both files in WAL mode, the marker gone, and the rows of a journaled
// build, row for row.
func TestBuild(t *testing.T) {
	defer func(p, b, h int64) { textPart, bulkBytes, heldMax = p, b, h }(textPart, bulkBytes, heldMax)
	dir := buildCorpus(t)
	ref, ix := openTest(t, dir), openTest(t, dir)
	ref.journaled = true
	syncAll(t, ref)
	began := false
	ix.crashAfterText = func() bool { began = began || ix.build != nil; return false }
	syncAll(t, ix)
	if !began {
		t.Fatal("the cold Sync was journaled")
	}
	for _, db := range []string{"main", textSchemaName} {
		var mode string
		if err := ix.db.QueryRow(`PRAGMA ` + db + `.journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("%s: journal mode %q (%v), want wal", db, mode, err)
		}
	}
	if _, err := os.Stat(buildMarker(ix.path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("marker after the build: %v", err)
	}
	if diff := cmp.Diff(dumpIndex(t, ref), dumpIndex(t, ix)); diff != "" {
		t.Errorf("built vs journaled (-journaled +built):\n%s", diff)
	}
}

// TestCrashInBuild: a build that stops at any commit, or whose end fails,
// leaves its marker; the next Open deletes both files, and the next Sync
// builds the index of a run without the crash.
func TestCrashInBuild(t *testing.T) {
	defer func(p, b, h int64) { textPart, bulkBytes, heldMax = p, b, h }(textPart, bulkBytes, heldMax)
	dir := buildCorpus(t)
	ref := openTest(t, dir)
	syncAll(t, ref)
	for _, at := range []int{2, 5, -1} {
		ix := openTest(t, dir)
		if at < 0 {
			at = countCommits(t, dir) - 1
		}
		commits := 0
		ix.crashAfterText = func() bool { commits++; return commits == at }
		if _, err := ix.Sync(context.Background(), true); !errors.Is(err, errCrashed) {
			t.Fatalf("crash at %d: sync %v after %d commits", at, err, commits)
		}
		if _, err := os.Stat(buildMarker(ix.path)); err != nil {
			t.Fatalf("crash at %d: no marker: %v", at, err)
		}
		ix.Close()
		again := openWith(t, ix.o)
		var files int
		again.db.QueryRow(`SELECT count(*) FROM files`).Scan(&files)
		if files != 0 {
			t.Errorf("crash at %d: %d files rows kept from the build", at, files)
		}
		syncAll(t, again)
		if diff := cmp.Diff(roundFloats(dumpIndex(t, ref)), roundFloats(dumpIndex(t, again))); diff != "" {
			t.Errorf("crash at %d (-without +with):\n%s", at, diff)
		}
	}
}

// countCommits counts the write transactions of a cold Sync of dir.
func countCommits(t *testing.T, dir string) int {
	ix := openTest(t, dir)
	n := 0
	ix.crashAfterText = func() bool { n++; return false }
	syncAll(t, ix)
	return n
}

// TestBuildElsewhere: while another process builds the index (its marker
// locked), Open waits; once the build ended, it opens the index as built.
func TestBuildElsewhere(t *testing.T) {
	dir := genCorpus(t, corpus.Options{Files: 3, Bytes: 64 << 10, Seed: 3})
	ix := openTest(t, dir)
	syncAll(t, ix)
	ix.Close()
	m, err := lockMarker(buildMarker(ix.path))
	if err != nil {
		t.Fatal(err)
	}
	opened := make(chan *Index)
	go func() {
		again, err := Open(context.Background(), ix.o)
		if err != nil {
			t.Error(err)
		}
		opened <- again
	}()
	// Open meets the marker locked: it can return only once the build
	// ended, and then with the index as built (a marker taken for a dead
	// build's would have it deleted).
	(&build{marker: m}).abandon(false)
	again := <-opened
	defer again.Close()
	var files int
	again.db.QueryRow(`SELECT count(*) FROM files`).Scan(&files)
	if files != 3 {
		t.Errorf("%d files after waiting for the build, want the 3 indexed", files)
	}
}

// TestBuildBeside: while another connection has the index open (another
// process's reader), the journals cannot be turned off; the cold Sync goes
// on journaled and leaves no marker.
func TestBuildBeside(t *testing.T) {
	defer func(p, b, h int64) { textPart, bulkBytes, heldMax = p, b, h }(textPart, bulkBytes, heldMax)
	dir := buildCorpus(t)
	ix := openTest(t, dir)
	other, err := sql.Open("sqlite", readerDSN(ix.path, 64))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.QueryRowContext(context.Background(), `SELECT count(*) FROM files`).Scan(new(int)); err != nil {
		t.Fatal(err)
	}
	built := false
	ix.crashAfterText = func() bool { built = built || ix.build != nil; return false }
	syncAll(t, ix)
	if built {
		t.Error("built without journals beside another connection")
	}
	if _, err := os.Stat(buildMarker(ix.path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("marker after a journaled Sync: %v", err)
	}
}
