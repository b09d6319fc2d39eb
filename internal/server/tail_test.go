package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"piweb/internal/app"
	"piweb/internal/corpus"
)

// TestContextFromIndex: a page of a session's context asked while no
// parse of it is cached is answered from the index without parsing the
// file (the cache stays empty), and the answer is byte for byte the one
// the parse gives, for the newest page and an earlier one, on generated
// sessions with branches and compactions.
func TestContextFromIndex(t *testing.T) {
	t.Parallel() // its own rig (a generated agent dir, its catalog and a server; no pi); shares nothing with other tests
	agentDir := filepath.Join(t.TempDir(), "agent")
	if _, err := corpus.Generate(agentDir, corpus.Options{Files: 12, Bytes: 3 << 20, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	r := serveRig(t, agentDir, Options{Addr: "127.0.0.1:1"}, app.Config{})
	srv, cat := r.srv, r.cat
	all, _, _ := cat.List(context.Background(), ListQuery{})
	if len(all) != 12 {
		t.Fatalf("%d sessions listed", len(all))
	}
	body := func(route string) string {
		resp := r.do("GET", route, nil)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", route, resp.StatusCode, b)
		}
		return string(b)
	}
	for _, m := range all {
		var newest struct{ Total int }
		json.Unmarshal([]byte(body("/api/sessions/"+m.Key+"/context?limit=1")), &newest)
		for _, q := range []string{"?limit=60", fmt.Sprintf("?limit=7&before=%d", newest.Total/2)} {
			route := "/api/sessions/" + m.Key + "/context" + q
			srv.cache.Forget(m.Path)
			fromIndex := body(route)
			if srv.cache.Cached(m.Path) {
				t.Fatalf("%s: parsed the file", route)
			}
			body("/api/sessions/" + m.Key + "/context") // the whole context parses and caches it
			if !srv.cache.Ready(m.Path) {
				t.Fatalf("%s: no parse cached", route)
			}
			if fromParse := body(route); fromIndex != fromParse {
				t.Errorf("%s:\nindex %.300s\nparse %.300s", route, fromIndex, fromParse)
			}
		}
	}
}
