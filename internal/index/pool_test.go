package index

import (
	"context"
	"database/sql"
	"sync"
	"testing"
)

// TestReadPoolBounded: many concurrent readers share at most maxReaders
// SQLite connections (each holds a page cache and file handles).
func TestReadPoolBounded(t *testing.T) {
	ix := openTest(t, t.TempDir())
	ctx := context.Background()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 64 {
		wg.Go(func() {
			<-start
			for range 5 {
				if _, err := ix.Search(ctx, Query{Text: "anything"}); err != nil {
					t.Error(err)
					return
				}
				if _, err := ix.Sessions(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	st := ix.db.Stats()
	if st.MaxOpenConnections != maxReaders || st.OpenConnections > maxReaders {
		t.Errorf("read pool: max %d, open %d; want at most %d", st.MaxOpenConnections, st.OpenConnections, maxReaders)
	}
}

// TestConnectionsBounded: every connection, the writer's and the
// readers', has a page cache of 8 MB and no mapping of the file (whose
// touched pages stayed resident: a cold index of 25,000 sessions grew to
// the size of its 330 MB file), so that the index's memory is bounded by
// design whatever the corpus (issue 21).
func TestConnectionsBounded(t *testing.T) {
	ix := openTest(t, t.TempDir())
	for name, db := range map[string]*sql.DB{"writer": ix.wdb, "reader": ix.db} {
		var mmap, cache int64
		if err := db.QueryRow(`PRAGMA mmap_size`).Scan(&mmap); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`PRAGMA cache_size`).Scan(&cache); err != nil {
			t.Fatal(err)
		}
		if mmap != 0 || cache != -8192 {
			t.Errorf("%s: mmap_size %d, cache_size %d; want 0 and -8192 (8 MB)", name, mmap, cache)
		}
	}
}
