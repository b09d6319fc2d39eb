package index

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// A JSON number beyond a double's range (1e400) is Infinity to JSON.parse,
// and pi (or any writer of the folder) can leave one in a session file.
const (
	nfHeader = `{"type":"session","version":3,"id":"0b0e0f00-0000-4000-8000-000000000001","timestamp":"2026-01-02T03:04:05.006Z","cwd":"/w"}`
	nfUser   = `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-02T03:04:06.000Z","message":{"role":"user","content":"hello infinity","timestamp":%s}}`
	nfAsst   = `{"type":"message","id":"a1","parentId":"u1","timestamp":%s,"message":{"role":"assistant","content":[{"type":"text","text":"big numbers"}],"provider":"p","model":"m","usage":{"input":%s,"output":%s,"cacheRead":0,"cacheWrite":0,"totalTokens":%s,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":%s}},"stopReason":"stop","timestamp":1767323047000}}`
)

// nonFiniteFiles are sessions with overflowing numbers where pi reads
// numbers: message times, entry times, usage and cost.
var nonFiniteFiles = map[string]string{
	"msg-time-inf":   nfFile("1e400", `"2026-01-02T03:04:07.000Z"`, "1", "1"),
	"msg-time-minus": nfFile("-1e400", `"2026-01-02T03:04:07.000Z"`, "1", "1"),
	"msg-time-huge":  nfFile("1e300", `"2026-01-02T03:04:07.000Z"`, "1", "1"),
	"entry-time-inf": nfFile("1767323046000", "1e400", "1", "1"),
	"usage-inf":      nfFile("1767323046000", `"2026-01-02T03:04:07.000Z"`, "1e400", "-1e400"),
	"usage-huge":     nfFile("1767323046000", `"2026-01-02T03:04:07.000Z"`, "1.7e308", "1.7e308"),
}

func nfFile(msgTime, entryTime, tokens, cost string) string {
	user := strings.Replace(nfUser, "%s", msgTime, 1)
	asst := strings.Replace(nfAsst, "%s", entryTime, 1)
	for _, v := range []string{tokens, tokens, tokens, cost} {
		asst = strings.Replace(asst, "%s", v, 1)
	}
	return nfHeader + "\n" + user + "\n" + asst + "\n"
}

// writeNonFinite writes each of nonFiniteFiles in its own project.
func writeNonFinite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range nonFiniteFiles {
		proj := filepath.Join(dir, "sessions", "--"+name+"--")
		f := filepath.Join(proj, "2026-01-02T03-04-05-006Z_0b0e0f00-0000-4000-8000-000000000001.jsonl")
		testkit.WriteFile(t, f, data)
	}
	return dir
}

// TestNonFiniteNumbers: overflowing numbers index without a panic (they
// crashed serve, and every restart, in the row encoding), the listing is
// the direct scan's and pi's own (an Invalid Date where pi has one), the
// sessions' metadata encodes, and the text is found.
func TestNonFiniteNumbers(t *testing.T) {
	dir := writeNonFinite(t)
	ix := openTest(t, dir)
	checkList(t, ix, dir)
	ctx := context.Background()
	if _, err := ix.Sync(ctx, true); err != nil {
		t.Fatal(err)
	}
	metas, err := ix.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(metas) != len(nonFiniteFiles) {
		t.Errorf("%d sessions, want %d", len(metas), len(nonFiniteFiles))
	}
	for _, m := range metas {
		if m.Error != "" {
			t.Errorf("%s: %s", m.Info.Path, m.Error)
		}
		if _, err := json.Marshal(m); err != nil {
			t.Errorf("%s: metadata does not encode: %v", m.Info.Path, err)
		}
	}
	hits, err := ix.Search(ctx, Query{Text: "infinity"})
	if err != nil || len(hits) != len(nonFiniteFiles) {
		t.Errorf("search: %d hits, %v; want %d", len(hits), err, len(nonFiniteFiles))
	}
	if testing.Short() {
		return
	}
	o := pitest.V16.StartOracle(t)
	got, err := ix.ListJSON(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sortedByPath(t, o.Call(t, "listall", dir)), sortedByPath(t, got)); diff != "" {
		t.Errorf("listing differs from pi 1.6's listAll (-pi +piweb):\n%s", diff)
	}
}

// sortedByPath decodes a listing and orders it by path without
// allMessagesText: pi's order of an Invalid Date depends on its neighbours.
func sortedByPath(t *testing.T, list []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	if err := json.Unmarshal(list, &out); err != nil {
		t.Fatalf("%v: %s", err, list)
	}
	for _, m := range out {
		delete(m, "allMessagesText")
	}
	slices.SortFunc(out, func(a, b map[string]any) int { return strings.Compare(a["path"].(string), b["path"].(string)) })
	return out
}

// FuzzIndexFile indexes any file content, overflowing numbers first among
// the seeds: syncing, listing, the sessions' metadata, usage and search
// never fail or panic whatever a file holds (a bad file is a row with an
// error, not an error of the index).
func FuzzIndexFile(f *testing.F) {
	for _, data := range nonFiniteFiles {
		f.Add([]byte(data))
	}
	f.Add([]byte(nfHeader + "\n" + `{"type":"message","id":"x","parentId":null,"timestamp":1e400,` +
		`"message":{"role":"assistant","usage":{"input":1e400,"cost":{"total":-1e400}},"timestamp":-1e400}}` + "\n"))
	f.Add([]byte(`{"type":"session","version":3,"id":"x","timestamp":1e400,"cwd":"/w"}` + "\n"))
	dir := f.TempDir()
	proj := filepath.Join(dir, "sessions", "--w--")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		f.Fatal(err)
	}
	ix := openTest(f, dir)
	ctx := context.Background()
	n := 0
	f.Fuzz(func(t *testing.T, data []byte) {
		n++
		name := filepath.Join(proj, fmt.Sprintf("2026-01-02T03-04-05-006Z_0b0e0f00-0000-4000-8000-%012d.jsonl", n))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(name)
		if _, err := ix.Sync(ctx, true); err != nil {
			t.Fatalf("sync: %v", err)
		}
		metas, err := ix.Sessions(ctx)
		if err != nil {
			t.Fatalf("sessions: %v", err)
		}
		if _, err := json.Marshal(metas); err != nil {
			t.Fatalf("sessions do not encode: %v", err)
		}
		if _, err := ix.ListJSON(ctx); err != nil {
			t.Fatalf("listing: %v", err)
		}
		rows, err := ix.Usage(ctx, UsageQuery{By: "model"})
		if err != nil {
			t.Fatalf("usage: %v", err)
		}
		if _, err := json.Marshal(rows); err != nil {
			t.Fatalf("usage does not encode: %v", err)
		}
		if _, err := ix.Search(ctx, Query{Text: "a"}); err != nil {
			t.Fatalf("search: %v", err)
		}
	})
}
