package index

import (
	"context"
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
