package server

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"piweb/internal/app"
	"piweb/internal/testkit"
)

// TestScanDetailAsParse: a session's detail read by a scan of its file
// (a session whose parse is not cached) is byte for byte the parse's, on
// real pi's sessions and damaged ones (the scan finds the structural
// problems, ids and parents, and leaves bad lines to the parse), freshly indexed and after lines appended behind the index's
// back (the scan reads the file, never the index).
func TestScanDetailAsParse(t *testing.T) {
	agentDir := filepath.Join(t.TempDir(), "agent")
	copyFixtures(t, filepath.Join(agentDir, "sessions", "--fx--"))
	r := serveRig(t, agentDir, Options{Addr: "127.0.0.1:1"}, app.Config{})
	srv := r.srv
	metas, _, err := r.cat.List(context.Background(), ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	api := r.api()
	for i, m := range metas {
		parsed, scanned := compareDetail(t, srv, m)
		srv.cache.Forget(m.Path)
		resp, err := api.Send(context.Background(), "GET", "/api/sessions/"+m.Key, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := string(body); got != parsed || srv.cache.Ready(m.Path) == scanned {
			t.Errorf("%s: GET answered %d bytes (the parse's: %d), parse cached: %v", m.Path, len(body), len(parsed), srv.cache.Ready(m.Path))
		}
		appendLabel(t, srv, m, i) // the index lags behind the file now
	}
	var taken int
	for _, m := range metas {
		if _, ok := srv.ops.ScanDetail(m); ok {
			taken++
		}
		compareDetail(t, srv, m)
	}
	if taken < 15 || taken == len(metas) {
		t.Errorf("the scan took %d of %d sessions: want the sound ones, not the damaged", taken, len(metas))
	}
}

// copyFixtures copies real pi's sessions and damaged ones into dir.
func copyFixtures(t *testing.T, dir string) {
	var files []string
	for _, g := range []string{"../../pisession/testdata/pi-1.6.0/*.jsonl", "../../pisession/testdata/pi-1.6.0/gen-out/*.jsonl",
		"../../pisession/testdata/pi-1.6.0/list/sessions/*/*.jsonl", "../pitest/testdata/fixtures/*/sessions/*/*.jsonl",
		"../pitest/testdata/fixtures/pi-0.73.1/*.jsonl", "../../cmd/piweb/testdata/damaged/sessions/*/*.jsonl"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		data := testkit.ReadFile(t, f)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d_%s", i, filepath.Base(f))), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// compareDetail checks that the scan's detail of m, when it takes the
// file (scanned), is the parse's byte for byte; it returns the parse's.
func compareDetail(t *testing.T, srv *Server, m Meta) (parsed string, scanned bool) {
	t.Helper()
	srv.cache.Forget(m.Path)
	sd, ok := srv.ops.ScanDetail(m)
	sess, err := srv.cache.Load(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	want := httptest.NewRecorder()
	if err := writeDetail(want, srv.ops.Detail(m, sess)); err != nil {
		t.Fatal(err)
	}
	if !ok {
		return want.Body.String(), false
	}
	got := httptest.NewRecorder()
	if err := writeDetail(got, sd); err != nil {
		t.Fatal(err)
	}
	if got.Body.String() != want.Body.String() {
		t.Errorf("%s: the scan's detail differs from the parse's:\nscan:  %s\nparse: %s", m.Path, got.Body, want.Body)
	}
	return want.Body.String(), true
}

// appendLabel appends a label of the leaf (a child of it) to m's file.
func appendLabel(t *testing.T, srv *Server, m Meta, n int) {
	sess, err := srv.cache.Load(m.Path)
	if err != nil || sess.Leaf() == nil || sess.Leaf().ID == "" {
		return
	}
	leaf := strconv.Quote(sess.Leaf().ID)
	line := fmt.Sprintf(`{"type":"label","id":"appended-%d","parentId":%s,"timestamp":"2026-12-05T12:00:00.000Z","targetId":%s,"label":"later"}`+"\n",
		n, leaf, leaf)
	f, err := os.OpenFile(m.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
}
