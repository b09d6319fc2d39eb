package pitest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// ListDir copies a recorded listing folder (src/sessions/*/*.jsonl) into a
// temporary agent dir and gives each file the mtime src/mtimes.json
// records for it (its "default" entry otherwise), as the recording script
// did before it asked pi, so a listing's tie order can be compared.
func ListDir(t testing.TB, src string) string {
	t.Helper()
	var mtimes map[string]string
	raw, err := os.ReadFile(filepath.Join(src, "mtimes.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &mtimes); err != nil {
		t.Fatal(err)
	}
	agent := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(src, "sessions", "*", "*.jsonl"))
	for _, f := range files {
		rel, _ := filepath.Rel(filepath.Join(src, "sessions"), f)
		copyWithMtime(t, f, filepath.Join(agent, "sessions", rel), mtimeOf(t, mtimes, rel))
	}
	return agent
}

// mtimeOf is rel's recorded mtime, or the "default" one.
func mtimeOf(t testing.TB, mtimes map[string]string, rel string) time.Time {
	t.Helper()
	ts, ok := mtimes[filepath.ToSlash(rel)]
	if !ok {
		ts = mtimes["default"]
	}
	mt, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		t.Fatal(err)
	}
	return mt
}

// copyWithMtime copies src to dst (creating its folder) and sets its mtime.
func copyWithMtime(t testing.TB, src, dst string, mt time.Time) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(dst, mt, mt); err != nil {
		t.Fatal(err)
	}
}
