package faults

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// uuid7ish makes a unique id in a UUID's shape.
func uuid7ish() string {
	b := make([]byte, 16)
	rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-7" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}

// genSession writes a session of version 1 or 3 with n messages (each
// about size bytes) into dir, optionally forked from parent, and returns
// its path and header id.
func genSession(dir string, version, n, size int, parent string) (string, string) {
	id := uuid7ish()
	ts := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var b strings.Builder
	ver := ""
	if version > 1 {
		ver = fmt.Sprintf(`"version":%d,`, version)
	}
	par := ""
	if parent != "" {
		par = fmt.Sprintf(`,"parentSession":%q`, parent)
	}
	fmt.Fprintf(&b, `{"type":"session",%s"id":%q,"timestamp":%q,"cwd":"/tmp/proj"%s}`+"\n", ver, id, ts.Format(time.RFC3339), par)
	prev := "null"
	filler := strings.Repeat("lorem ipsum ", max(size/12, 1))
	for i := range n {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		at := ts.Add(time.Duration(i+1) * time.Second).Format("2006-01-02T15:04:05.000Z")
		content := fmt.Sprintf(`[{"type":"text","text":"message %d %s"}]`, i, filler)
		if version > 1 {
			eid := fmt.Sprintf("%08x", i+1)
			fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":%q,"message":{"role":%q,"content":%s,"timestamp":%d}}`+"\n",
				eid, prev, at, role, content, i)
			prev = `"` + eid + `"`
		} else {
			fmt.Fprintf(&b, `{"type":"message","timestamp":%q,"message":{"role":%q,"content":%s,"timestamp":%d}}`+"\n", at, role, content, i)
		}
	}
	name := ts.Format("2006-01-02T15-04-05-000Z") + "_" + id + ".jsonl"
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		panic(err)
	}
	return path, id
}
