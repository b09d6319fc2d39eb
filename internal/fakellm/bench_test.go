package fakellm

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// BenchmarkFirstByte measures request → first SSE frame over loopback
// (reported as ttfb-µs) and the full stream of a 1 KB answer in 8 deltas.
func BenchmarkFirstByte(b *testing.B) {
	srv := New(Options{Rule: func(*Request) (Reply, bool) {
		return Text(strings.Repeat("word ", 200)).WithChunks(8), true
	}})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	client := ts.Client()
	var ttfb time.Duration
	var total int64
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		resp, err := client.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(userBody))
		if err != nil {
			b.Fatal(err)
		}
		br := bufio.NewReader(resp.Body)
		if _, err := br.ReadString('\n'); err != nil {
			b.Fatal(err)
		}
		ttfb += time.Since(start)
		n, _ := io.Copy(io.Discard, br)
		total += n
		resp.Body.Close()
	}
	b.SetBytes(total / int64(b.N))
	b.ReportMetric(float64(ttfb.Microseconds())/float64(b.N), "ttfb-µs")
}

// BenchmarkServeDirect measures the handler alone, without the network.
func BenchmarkServeDirect(b *testing.B) {
	srv := New(Options{Rule: func(*Request) (Reply, bool) {
		return Text(strings.Repeat("word ", 200)).WithChunks(8), true
	}})
	b.ReportAllocs()
	b.SetBytes(int64(len(userBody)))
	for b.Loop() {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(userBody))
		srv.ServeHTTP(w, r)
	}
}
