package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"piweb/internal/app"
	"piweb/internal/catalog"
	"piweb/internal/client"
	"piweb/internal/index"
	"piweb/internal/testkit"
)

// newIndexRig is newRig over the real SQLite index, watched live.
func newIndexRig(t *testing.T) *rig {
	t.Helper()
	d := seedDemo(t)
	s := newIndexServer(t, index.Options{AgentDir: d.AgentDir, Path: filepath.Join(t.TempDir(), "index.db"),
		Log: testkit.Log(t), Rescan: 200 * time.Millisecond}, watchOnly)
	t.Cleanup(s.cleanup)
	return &rig{t: t, srv: s.srv, ts: s.ts, ix: s.ix, d: d, cat: s.cat}
}

// watchOnly has the index follow its files without the catalog's
// niceness (catalog.WatchIndex).
func watchOnly(ctx context.Context, ix *index.Index) error { return ix.Watch(ctx) }

// indexServer is a Server over a real SQLite index, synced and then
// watched, and its catalog; cleanup stops all of it.
type indexServer struct {
	srv     *Server
	ts      *httptest.Server
	ix      *index.Index
	cat     *catalog.Catalog
	cleanup func()
}

// newIndexServer opens the index o, syncs it, has watch follow its files
// and serves its catalog.
func newIndexServer(tb testing.TB, o index.Options, watch func(context.Context, *index.Index) error) *indexServer {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ix, err := index.Open(ctx, o)
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	if _, err := ix.Sync(ctx, true); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("index sync: %v", time.Since(start))
	watched := make(chan struct{})
	go func() { watch(ctx, ix); close(watched) }()
	cat, err := catalog.New(ctx, ix, catalog.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	srv := newServer(tb, Options{Addr: "127.0.0.1:30141"}, app.Config{AgentDir: o.AgentDir, Catalog: cat})
	ts := httptest.NewServer(srv)
	return &indexServer{srv: srv, ts: ts, ix: ix, cat: cat, cleanup: func() {
		ts.Close()
		srv.Close()
		cat.Close()
		cancel()
		<-watched
		ix.Close()
	}}
}

func TestIndexCatalog(t *testing.T) {
	r := newIndexRig(t)
	if n := len(r.items()); n != len(r.d.Sessions) {
		t.Fatalf("%d sessions, want %d", n, len(r.d.Sessions))
	}
	// Search is the index's, with its branch flag.
	api := r.api()
	found, err := api.Search(t.Context(), client.SearchOptions{Text: "toggle"})
	if err != nil {
		t.Fatal(err)
	}
	off := 0
	for _, h := range found.Hits {
		if !h.OnCurrentBranch {
			off++
		}
	}
	if len(found.Hits) == 0 || off == 0 {
		t.Errorf("hits %v", found.Hits)
	}
	// A rename reads back at once.
	s := r.item("Dark theme")
	out, err := api.Rename(t.Context(), s.ID, "Renamed")
	if err != nil || out.Session == nil || out.Session.Name == nil || *out.Session.Name != "Renamed" {
		t.Errorf("rename answer %+v, %v", out.Session, err)
	}
	// An outside append reaches the session stream through the watcher.
	ctx := t.Context()
	ch := listen(t)(api.SessionEvents(ctx, s.ID, ""))
	hello := next(t, ch)
	testkit.AppendFile(t, s.Path, fmt.Sprintf(`{"type":"session_info","id":"feed0001","parentId":%q,"timestamp":"2026-01-01T00:00:00.000Z","name":"Outside"}`+"\n", hello.data["leaf"]))
	start := time.Now()
	ev := next(t, ch)
	if ev.data["type"] != "entries_appended" || ev.data["leaf"] != "feed0001" {
		t.Fatalf("event %+v", ev)
	}
	t.Logf("outside append seen after %v", time.Since(start))
	if time.Since(start) > time.Second {
		t.Errorf("append took %v to show", time.Since(start))
	}
}
