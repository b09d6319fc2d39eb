package server

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"piweb/internal/app"
	"piweb/internal/client"
	"piweb/internal/corpus"
	"piweb/internal/testkit"
)

// BenchmarkOpenHugeSession times what opening a session asks first: the
// newest page of its context (GET /context?limit=60, what view.js asks),
// on a 157 MB generated session (corpus.BenchFile; $PIWEB_BENCH_FILE
// names another), the parse cache emptied before each open, the index
// warm. It reports ns/op, peak-heap-MB and peak-rss-MB (above the start of
// the open) and rss-after-MB (what the open left resident, after a GC).
//
//	go test -run '^$' -bench OpenHugeSession -benchtime 5x ./internal/server
func BenchmarkOpenHugeSession(b *testing.B) {
	src, err := corpus.BenchFile(os.Getenv, 157<<20)
	if err != nil {
		b.Fatal(err)
	}
	agentDir := filepath.Join(b.TempDir(), "agent")
	dst := filepath.Join(agentDir, "sessions", "--huge--", filepath.Base(src))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.Symlink(src, dst); err != nil {
		b.Fatal(err)
	}
	cat := openCatalog(b, agentDir)
	srv := newServer(b, Options{Addr: "127.0.0.1:1"}, app.Config{AgentDir: agentDir, Catalog: cat})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	api := client.New(ts.URL, client.Options{})
	all, _, _ := cat.List(context.Background(), ListQuery{})
	if len(all) != 1 {
		b.Fatalf("%d sessions listed", len(all))
	}
	route := "/api/sessions/" + all[0].Key + "/context?limit=60"
	var heap, rss, after float64
	for b.Loop() {
		b.StopTimer()
		srv.cache.Forget(all[0].Path)
		p := testkit.StartPeak()
		b.StartTimer()
		resp, err := api.Send(context.Background(), "GET", route, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		b.StopTimer()
		after = max(after, p.Held())
		hp, rs := p.Stop()
		heap, rss = max(heap, hp), max(rss, rs)
		b.StartTimer()
	}
	b.ReportMetric(heap, "peak-heap-MB")
	b.ReportMetric(rss, "peak-rss-MB")
	b.ReportMetric(after, "rss-after-MB")
}
