package sessionstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestCacheSeesAtomicReplace: a file replaced by rename with the same size
// and mtime is parsed again (the cache keys on device and inode too).
func TestCacheSeesAtomicReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	line := func(id string) string {
		return `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n"
	}
	mtime := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	os.WriteFile(p, []byte(line("aaaa")), 0o600)
	os.Chtimes(p, mtime, mtime)
	c := NewCache(8, 1<<30)
	if s, err := c.Load(p); err != nil || s.Header == nil {
		t.Fatalf("load: %v", err)
	}
	tmp := filepath.Join(dir, "tmp")
	os.WriteFile(tmp, []byte(line("bbbb")), 0o600)
	os.Chtimes(tmp, mtime, mtime)
	os.Rename(tmp, p)
	s, err := c.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := s.Header.String("id"); id != "bbbb" {
		t.Errorf("served the replaced file's parse: id %q", id)
	}
}

// TestCacheBudgetsParsedSize: a small file of many tiny lines counts by
// what its parse holds, so it alone exceeds a budget its file size fits.
func TestCacheBudgetsParsedSize(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.jsonl")
	small := filepath.Join(dir, "small.jsonl")
	head := `{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n"
	os.WriteFile(big, []byte(head+strings.Repeat("{}\n", 100_000)), 0o600)
	os.WriteFile(small, []byte(head), 0o600)
	fi, _ := os.Stat(big)
	c := NewCache(8, 4*fi.Size())
	s, err := c.Load(big)
	if err != nil {
		t.Fatal(err)
	}
	if m := s.MemSize(); m < 10*fi.Size() {
		t.Errorf("parsed size %d for a %d-byte file of 100,000 lines", m, fi.Size())
	}
	c.Load(small)
	if c.Cached(big) {
		t.Error("the big parse stayed cached beyond the byte budget")
	}
}

// TestCacheReadsOnlyAppends: a file that grew is parsed from where the
// last parse ended (the same Growing), and reads as Parse reads it, a
// half-written last line included; a file rewritten in place (the bytes
// just before the old end changed) is read again whole.
func TestCacheReadsOnlyAppends(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte(sHdr+"\n"+sE1+"\n"), 0o600)
	c := NewCache(8, 1<<30)
	load := func(step string) *pisession.Growing {
		t.Helper()
		s, err := c.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(p)
		if d := cmp.Diff(pisession.Parse(data).Dump(), s.Dump()); d != "" {
			t.Fatalf("%s: the cache's parse differs from Parse (-Parse +cache):\n%s", step, d)
		}
		return c.items[p].g
	}
	first := load("first")
	testkit.AppendFile(t, p, sE2[:30])
	if load("half a line") != first {
		t.Error("an append was read as a new file")
	}
	testkit.AppendFile(t, p, sE2[30:]+"\n")
	if load("the line completed") != first {
		t.Error("an append was read as a new file")
	}
	data, _ := os.ReadFile(p)
	// pi never does this; an editor saving in place might.
	changed := strings.Replace(string(data), `"timestamp":2}}`, `"timestamp":3}}`, 1) + `{"type":"label","id":"l","parentId":"a","label":"x"}` + "\n"
	f, _ := os.OpenFile(p, os.O_WRONLY, 0)
	f.WriteAt([]byte(changed), 0)
	f.Close()
	if load("rewritten in place") == first {
		t.Error("a file rewritten in place was taken as grown")
	}
}

// TestCacheReady: Ready reports a kept parse only while it is current, and
// does not wait for a parse underway (the first context page would wait
// for the detail's parse of a huge file).
func TestCacheReady(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte(`{"type":"session","version":3,"id":"a","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}`+"\n"), 0o600)
	c := NewCache(8, 1<<30)
	if c.Ready(p) {
		t.Fatal("ready before any load")
	}
	if _, err := c.Load(p); err != nil {
		t.Fatal(err)
	}
	if !c.Ready(p) {
		t.Fatal("not ready after a load")
	}
	it := c.item(p)
	it.mu.Lock() // as a parse underway holds it
	busy := c.Ready(p)
	it.mu.Unlock()
	if busy {
		t.Error("ready while a parse holds the slot")
	}
	testkit.AppendFile(t, p, `{"type":"label","id":"b","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}`+"\n")
	if c.Ready(p) {
		t.Error("ready for a file grown since its parse")
	}
}

// TestCacheTellsWhatItHolds: OnHeld hears the file's size while it is
// parsed, what the parse holds once it is cached, and nothing once it is
// forgotten (serve's soft memory limit follows it, internal/memlimit).
func TestCacheTellsWhatItHolds(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	head := `{"type":"session","version":3,"id":"aaaa","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n"
	os.WriteFile(p, []byte(head), 0o600)
	c := NewCache(8, 1<<30)
	var heard []int64
	c.OnHeld(func(n int64) { heard = append(heard, n) })
	s, err := c.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	c.Forget(p)
	want := []int64{0, int64(len(head)), 0, s.MemSize(), 0}
	if diff := cmp.Diff(want, heard); diff != "" {
		t.Errorf("held (-want +got):\n%s", diff)
	}
}
