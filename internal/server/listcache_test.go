package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"piweb/internal/app"
	"piweb/internal/catalog"
)

// TestListCache: the listing built from cached items is byte for byte what
// json.Marshal makes of the listing, after changes, removals, additions and
// running-state changes, and its gzipped form (made in the background)
// inflates to the same bytes.
func TestListCache(t *testing.T) {
	t.Parallel() // its own rig (a static catalog and a server; no pi); shares nothing with other tests
	cat := catalog.Static()
	put := cat.Put
	for i := range 400 {
		put(meta(i, strings.Repeat("<é&\u2028> ", 40)+fmt.Sprint(i)))
	}
	r := serveRig(t, t.TempDir(), Options{Addr: "127.0.0.1:1"}, app.Config{Catalog: cat})
	srv, ts := r.srv, r.ts
	queries := map[string]ListQuery{"": {Sort: "modified"}, "limit=50&offset=10": {Sort: "modified", Limit: 50, Offset: 10},
		"sort=name&order=asc": {Sort: "name", Asc: true}, "project=%2Fp%2F3": {Sort: "modified", Project: "/p/3"}}
	check := func(step string) {
		t.Helper()
		for q, lq := range queries {
			metas, total, _ := cat.List(context.Background(), lq)
			items := make([]catalog.Item, len(metas))
			for i, m := range metas {
				items[i] = srv.item(m)
			}
			want, _ := json.Marshal(map[string]any{"sessions": items, "total": total})
			want = append(want, '\n')
			got, _ := fetch(t, ts.URL+"/api/sessions?"+q, false)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s, ?%s: the listing differs from json.Marshal's", step, q)
			}
		}
	}
	check("first")
	check("cached")
	put(meta(7, "renamed"))
	check("changed")
	cat.Remove(meta(8, "").Path) // a parent of 9 is gone
	check("removed")
	put(meta(400, "new"))
	check("added")
	srv.live.WorkerChanged("") // a worker started or stopped
	check("running state")

	plain, _ := fetch(t, ts.URL+"/api/sessions", false)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		body, enc := fetch(t, ts.URL+"/api/sessions", true)
		if enc == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if inflated, _ := io.ReadAll(zr); !bytes.Equal(inflated, plain) {
				t.Error("the gzipped listing differs")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the listing was never served gzipped")
		}
	}
}

// meta is the listing of a synthetic session i.
func meta(i int, first string) Meta {
	m := Meta{ID: fmt.Sprintf("id-%03d", i), Path: fmt.Sprintf("/s/%03d.jsonl", i), Cwd: fmt.Sprintf("/p/%d", i%7),
		FirstMessage: first, Created: float64(1_700_000_000_000 + i), Modified: float64(1_700_000_100_000 - i), MessageCount: i}
	if i%50 == 0 {
		m.Created = math.NaN()
	}
	if i%3 == 0 && i > 0 {
		m.ParentPath = fmt.Sprintf("/s/%03d.jsonl", i-1)
	}
	return m
}

// BenchmarkListRebuild times the rebuild of the sidebar's first page (500
// of 5,000 sessions, the archive left out, pins first, counts per folder)
// after one session changed: the cost the first request after a change
// pays (the gzip made in the background is left out).
//
//	go test -run '^$' -bench ListRebuild ./internal/server
func BenchmarkListRebuild(b *testing.B) {
	cat := catalog.Static()
	for i := range 5000 {
		cat.Put(meta(i, strings.Repeat("a first message ", 10)))
	}
	srv := newServer(b, Options{Addr: "127.0.0.1:1"}, app.Config{AgentDir: b.TempDir(), Catalog: cat})
	defer srv.Close()
	srv.lists.NoGzip = true
	const q = "archived=hide&pinned=first&limit=500"
	r := httptest.NewRequest("GET", "/api/sessions?"+q, nil)
	lq := ListQuery{Sort: "modified", Limit: 500}
	src, err := srv.pageSource(r, &lq)
	if err != nil {
		b.Fatal(err)
	}
	body, _, _ := srv.lists.Get(q, true, src)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		cat.Put(meta(i%5000, fmt.Sprint("changed ", i)))
		srv.lists.Get(q, true, src)
	}
}

// fetch GETs url, asking for gzip when gz, and returns the raw body and
// its Content-Encoding.
func fetch(t *testing.T, url string, gz bool) ([]byte, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	tr := &http.Transport{DisableCompression: true}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: status %d: %s", url, resp.StatusCode, b)
	}
	return b, resp.Header.Get("Content-Encoding")
}
