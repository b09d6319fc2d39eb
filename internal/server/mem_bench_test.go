package server

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"piweb/internal/app"
	"piweb/internal/corpus"
	"piweb/internal/testkit"
)

// BenchmarkMemHugeSession measures what the session page's reads hold of
// a session whose one message line is 52 MB (issue 21: viewing one added
// 820 MB to serve): each route read cold (the parse cache emptied), its
// answer read and dropped. It reports peak-heap-MB (the Go heap's objects
// above the start, sampled), peak-rss-MB and heap-per-file-MB.
//
//	go test -run '^$' -bench MemHugeSession -benchtime 1x ./internal/server
func BenchmarkMemHugeSession(b *testing.B) {
	for _, role := range []string{"toolResult", "user"} {
		b.Run("role="+role, func(b *testing.B) { benchMemHuge(b, role) })
	}
}

func benchMemHuge(b *testing.B, role string) {
	agentDir := filepath.Join(b.TempDir(), "agent")
	path, err := corpus.Huge(agentDir, corpus.HugeOptions{Bytes: 52 << 20, Role: role, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	size := float64(fi.Size()) / (1 << 20)
	cat := openCatalog(b, agentDir)
	srv := newServer(b, Options{Addr: "127.0.0.1:1"}, app.Config{AgentDir: agentDir, Catalog: cat})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	r := &rig{t: &testing.T{}, srv: srv, ts: ts, cat: cat}
	all, _, _ := cat.List(context.Background(), ListQuery{})
	id := all[0].Key
	for _, route := range []string{"", "/context?limit=50", "/entries?limit=50", "/export?format=md",
		"/export?format=html", "/export?format=jsonl&scope=branch"} {
		b.Run("route="+route, func(b *testing.B) {
			var heap, rss float64
			for b.Loop() {
				srv.cache.Forget(path)
				p := testkit.StartPeak()
				resp := r.do("GET", "/api/sessions/"+id+route, nil)
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				h, s := p.Stop()
				heap, rss = max(heap, h), max(rss, s)
				if resp.StatusCode != 200 {
					b.Fatalf("%s: %s", route, resp.Status)
				}
			}
			b.ReportMetric(heap, "peak-heap-MB")
			b.ReportMetric(rss, "peak-rss-MB")
			b.ReportMetric(heap/size, "heap-per-file-MB")
		})
	}
}
