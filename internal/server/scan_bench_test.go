package server

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"piweb/internal/client"
)

// BenchmarkDetailAfterAppend: a huge session's detail (from a scan, its
// parse not cached) asked again after a line was appended, as the page
// does for a live session: the time of that second request.
func BenchmarkDetailAfterAppend(b *testing.B) {
	mb, err := strconv.Atoi(cmp.Or(os.Getenv("PIWEB_BENCH_OPEN_MB"), "157"))
	if err != nil {
		b.Fatal(err)
	}
	src := copyBenchFile(b, linearBenchFile(b, int64(mb)<<20))
	srv, ts, m := hugeServer(b, src)
	api := client.New(ts.URL, client.Options{})
	key := "/api/sessions/" + url.PathEscape(m.Key)
	if err := api.Do(context.Background(), "GET", key, nil, nil); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		line := fmt.Sprintf(`{"type":"message","id":"bench%d","parentId":null,"timestamp":"t","message":{"role":"user","content":"more"}}`+"\n", i)
		if err := appendLine(src, line); err != nil || srv.cache.Ready(m.Path) {
			b.Fatal(err, "or the parse is cached")
		}
		b.StartTimer()
		if err := api.Do(context.Background(), "GET", key, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// copyBenchFile copies a shared bench file into the benchmark's own
// folder, which it may append to.
func copyBenchFile(b *testing.B, src string) string {
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	dst := filepath.Join(b.TempDir(), filepath.Base(src))
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	return dst
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
