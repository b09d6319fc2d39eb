package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/testkit"
)

const (
	hdr  = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-02T03:04:05.678Z","cwd":"/w"}`
	usr  = `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-02T03:04:06.000Z","message":{"role":"user","content":"hello world","timestamp":1767323046000}}`
	asst = `{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-02T03:04:07.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi there"}],"provider":"p","model":"m","usage":{"input":3,"output":4,"cacheRead":0,"cacheWrite":0,"totalTokens":7,"cost":{"total":0.5}},"timestamp":1767323047000}}`
	name = `{"type":"session_info","id":"a3","parentId":"a2","timestamp":"2026-01-02T03:04:08.000Z","name":"  named  "}`
)

// edgeFiles are contents on which pi's listing has particular rules.
var edgeFiles = map[string]string{
	"plain":         hdr + "\n" + usr + "\n" + asst + "\n",
	"no-newline":    hdr + "\n" + usr + "\n" + asst,
	"partial":       hdr + "\n" + usr + "\n" + asst[:40],
	"header-only":   hdr,
	"empty":         "",
	"blank":         "\n\n  \n",
	"bom":           "\xef\xbb\xbf" + hdr + "\n" + usr + "\n",
	"crlf":          hdr + "\r\n" + usr + "\r\n",
	"garbage-first": "not json\n" + hdr + "\n" + usr + "\n",
	"no-header":     usr + "\n" + asst + "\n",
	"null-line":     hdr + "\nnull\n" + usr + "\n",
	"named":         hdr + "\n" + usr + "\n" + asst + "\n" + name + "\n",
	"name-cleared":  hdr + "\n" + name + "\n" + `{"type":"session_info","id":"a4","parentId":"a3","timestamp":"2026-01-02T03:04:09.000Z","name":""}` + "\n",
	"name-number":   hdr + "\n" + `{"type":"session_info","id":"a4","parentId":null,"timestamp":"x","name":5}` + "\n",
	"bad-content":   hdr + "\n" + `{"type":"message","id":"b","parentId":null,"timestamp":"x","message":{"role":"user","content":5}}` + "\n",
	"no-timestamps": `{"type":"session","id":"s2","cwd":"/w"}` + "\n" + `{"type":"message","id":"b","parentId":null,"message":{"role":"user","content":"x"}}` + "\n",
	"number-id":     `{"type":"session","id":42,"timestamp":"2026-01-02T03:04:05.678Z"}` + "\n" + usr + "\n",
	"malformed":     hdr + "\n{\"type\":\n" + usr + "\n",
	"dup-header":    hdr + "\n" + hdr + "\n" + usr + "\n",
	"unicode":       hdr + "\n" + strings.Replace(usr, "hello world", `h\u00e9llo \ud83d\ude00 <b>&amp;</b>`, 1) + "\n",
}

// writeEdgeFiles writes edgeFiles as sessions of project /w in dir and
// returns that project's folder.
func writeEdgeFiles(t *testing.T, dir string) string {
	t.Helper()
	for n, c := range edgeFiles {
		writeSession(t, dir, n, c)
	}
	return filepath.Join(dir, "sessions", "--w--")
}

func TestListEdgeFiles(t *testing.T) {
	dir := t.TempDir()
	writeEdgeFiles(t, dir)
	ix := openTest(t, dir)
	checkList(t, ix, dir)
}

// TestGrowByteByByte appends every edge file a few bytes at a time, as a
// slow writer would, and compares the listing with a direct scan after
// every step: the incremental state must always equal a full parse.
func TestGrowByteByByte(t *testing.T) {
	t.Parallel() // long under -race; shares nothing (TestFilterExact, which sets the tunables, is not parallel)
	for n, c := range edgeFiles {
		t.Run(n, func(t *testing.T) {
			dir := t.TempDir()
			proj := filepath.Join(dir, "sessions", "--w--")
			os.MkdirAll(proj, 0o755)
			p := filepath.Join(proj, "f.jsonl")
			ix := openTest(t, dir)
			for i := 0; i <= len(c); i += 37 {
				testkit.WriteFile(t, p, c[:min(i, len(c))])
				checkList(t, ix, dir)
			}
			os.WriteFile(p, []byte(c), 0o644)
			checkList(t, ix, dir)
			if _, err := ix.Sync(context.Background(), true); err != nil {
				t.Fatal(err)
			}
		})
	}
}
