package pisession

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// TestMigrationMatchesPi migrates the v1 fixture and compares it with the
// file real pi 0.73.1 wrote when it migrated the same input. Ids are random
// in both, so each id is replaced by the line that defines it.
func TestMigrationMatchesPi(t *testing.T) {
	fx := pitest.FixturesDir(t)
	s := readSession(t, filepath.Join(fx, "pi-mono-v1", "large-session.jsonl"))
	if !s.Migrated || s.Version != 1 {
		t.Fatalf("migrated = %v, version %d", s.Migrated, s.Version)
	}
	want := testkit.ReadFile(t, filepath.Join(fx, "pi-0.73.1", "v1-large-session-migrated-by-0.73.1.jsonl"))
	got := normalizeIDs(t, s.Encode())
	if diff := cmp.Diff(normalizeIDs(t, want), got); diff != "" {
		t.Errorf("migration differs from pi's (-pi +piweb):\n%s", diff)
	}
}

// normalizeIDs rewrites id, parentId and firstKeptEntryId of every line to
// the number of the line defining that id, keeping key order.
func normalizeIDs(t *testing.T, content []byte) []string {
	lines := bytes.Split(bytes.TrimSuffix(content, []byte("\n")), []byte("\n"))
	index := map[string]string{}
	for i, l := range lines {
		e := newEntry(l, i+1, 0, nil)
		if e != nil && e.ID != "" {
			index[e.ID] = "#" + strconv.Itoa(i)
		}
	}
	var out []string
	for i, l := range lines {
		e := newEntry(l, i+1, 0, nil)
		if e == nil {
			t.Fatalf("line %d is not JSON", i+1)
		}
		var set []rawMember
		for _, k := range []string{"id", "parentId", "firstKeptEntryId"} {
			if id, ok := e.String(k); ok {
				v, _ := json.Marshal(index[id])
				set = append(set, member3(k, v))
			}
		}
		if len(set) > 0 {
			e.setMembers(set...)
		}
		out = append(out, string(e.Raw))
	}
	return out
}

// TestMigrationIDsUnique: a v1 file's migrated ids are unique, as pi's
// generateId keeps them (it draws again while an id is taken). With
// 250,000 entries, eight random hex digits collide about seven times, and
// a repeated id makes pi's walks loop (a conformance run saw it as a
// parentId cycle).
func TestMigrationIDsUnique(t *testing.T) {
	t.Parallel() // one of the package's long tests; they share nothing and run side by side
	if testing.Short() {
		t.Skip("a 250,000-entry file")
	}
	var b bytes.Buffer
	b.WriteString(`{"type":"session","id":"x","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	for range 250000 {
		b.WriteString(`{"type":"message","timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"a"}}` + "\n")
	}
	s := Parse(b.Bytes())
	if !s.Migrated {
		t.Fatal("not migrated")
	}
	seen := make(map[string]bool, len(s.Entries))
	for _, e := range s.Entries {
		if seen[e.ID] {
			t.Fatalf("id %s given twice", e.ID)
		}
		seen[e.ID] = true
	}
}
