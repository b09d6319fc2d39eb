// Package catalogtest opens a catalog for a test or a benchmark: the
// steps every one of them took by hand (a temporary catalog, closed when
// the test ends, synced) in one call, and the wait for its search text.
package catalogtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"piweb/internal/catalog"
	"piweb/internal/testkit"
)

// Open opens a temporary catalog with o (o.Temporary is set), closed when
// tb ends, and syncs it.
func Open(tb testing.TB, o catalog.Options) *catalog.Catalog {
	tb.Helper()
	o.Temporary = true
	c, err := catalog.Open(context.Background(), o)
	if err != nil {
		tb.Fatalf("open catalog: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	if err := c.Sync(context.Background()); err != nil {
		tb.Fatalf("sync catalog: %v", err)
	}
	return c
}

// AwaitText waits until c's search text is indexed, which happens beside
// the listing after Sync returns (a benchmark timed while it runs would
// share the CPU and the peak RSS with it).
func AwaitText(tb testing.TB, c *catalog.Catalog) {
	tb.Helper()
	testkit.Eventually(tb, func() error {
		if st := c.State(); !st.Ready {
			return fmt.Errorf("%d files' text not indexed", st.TextBehind)
		}
		return nil
	}, 30*time.Minute, "the index's search text")
}
