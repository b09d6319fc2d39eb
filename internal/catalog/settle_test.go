package catalog

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"piweb/internal/demo"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestSettle: a change the catalog holds back until its next reload (here
// an hour away) is listed at once by Settle, as a request that missed a
// session the live events already announced needs.
func TestSettle(t *testing.T) {
	d, err := demo.Seed(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(t.Context(), Options{AgentDir: d.AgentDir, Temporary: true, Log: testkit.Log(t),
		Rescan: time.Hour, ReloadEvery: time.Hour, SyncFor: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	path := pisession.SessionFiles(d.AgentDir)[0]
	aside := filepath.Join(t.TempDir(), "aside.jsonl")
	if err := os.Rename(path, aside); err != nil {
		t.Fatal(err)
	}
	if err := c.Index().Update(t.Context(), path); err != nil {
		t.Fatal(err)
	}
	// The first change after the start is reloaded at once; the next waits.
	testkit.Eventually(t, func() bool { _, found := c.ByPath(path); return !found }, 5*time.Second, "the file gone")
	if err := os.Rename(aside, path); err != nil {
		t.Fatal(err)
	}
	if err := c.Index().Update(t.Context(), path); err != nil {
		t.Fatal(err)
	}
	if _, found := c.ByPath(path); found {
		t.Fatal("listed again before an hour's reload or Settle")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	c.Settle(ctx)
	if _, found := c.ByPath(path); !found {
		t.Error("not listed after Settle")
	}
	Static().Settle(ctx) // nothing to settle, no wait
}
