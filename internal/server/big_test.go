package server

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"piweb/internal/app"
)

// BenchmarkBigSession times the reads of the web app on the 150 MB session
// of the load benchmarks' corpus: first (parse) and warm (cached).
//
//	go test -run '^$' -bench BigSession -benchtime 3x ./internal/server
func BenchmarkBigSession(b *testing.B) {
	benchCorpus(b)
	big := bigFile(b)
	dir := b.TempDir()
	agentDir := filepath.Join(dir, "agent")
	dst := filepath.Join(agentDir, "sessions", "--big--", filepath.Base(big))
	os.MkdirAll(filepath.Dir(dst), 0o755)
	if err := os.Link(big, dst); err != nil {
		b.Fatal(err)
	}
	r := serveRig(b, agentDir, Options{Addr: "127.0.0.1:1"}, app.Config{})
	id := ""
	all, _, _ := r.cat.List(context.Background(), ListQuery{})
	for _, m := range all {
		id = m.Key
	}
	for _, route := range []string{"/context?limit=50", "", "/entries?limit=50", "/events"} {
		b.Run("route="+route, func(b *testing.B) {
			for i := range b.N {
				r.srv.cache.Forget(dst)
				if route == "/events" {
					continue
				}
				t0 := time.Now()
				resp := r.do("GET", "/api/sessions/"+id+route, nil)
				resp.Body.Close()
				cold := time.Since(t0)
				t0 = time.Now()
				resp = r.do("GET", "/api/sessions/"+id+route, nil)
				resp.Body.Close()
				if i == 0 {
					b.ReportMetric(float64(cold)/1e6, "cold-ms")
					b.ReportMetric(float64(time.Since(t0))/1e6, "warm-ms")
				}
			}
		})
	}
}
