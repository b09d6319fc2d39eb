package pisession

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// TestPi16Goldens compares piweb with pi 1.6.0's answers about the files
// under testdata/pi-1.6.0 (written by pi 1.6.0 over RPC, and by its
// SessionManager through gen/gen.mjs): the context at the default leaf and
// at every entry, the tree and the name. The goldens (*.pi.json) were
// recorded by gen/dump.mjs with real pi 1.6.0 on Node 22.19.
func TestPi16Goldens(t *testing.T) {
	for _, f := range pi16Files(t) {
		golden := strings.TrimSuffix(f, ".jsonl") + ".pi.json"
		raw, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%s: %v (record it with gen/dump.mjs)", f, err)
		}
		var want struct {
			Name   *string
			ByLeaf map[string]json.RawMessage
			Tree   json.RawMessage
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			leaves := make([]string, 0, len(want.ByLeaf))
			for id := range want.ByLeaf {
				leaves = append(leaves, id)
			}
			slices.Sort(leaves)
			bad := 0
			for _, id := range leaves {
				got, _ := s.Context(id).MarshalJSON()
				if diff, err := pitest.DiffJSON(want.ByLeaf[id], got); err != nil || diff != "" {
					if bad++; bad <= 3 {
						t.Errorf("context at %q (-pi +piweb):\n%s%v", id, diff, err)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d contexts differ", bad, len(leaves))
			}
			if diff, err := pitest.DiffJSON(want.Tree, FlatTreeJSON(s.Tree())); err != nil || diff != "" {
				t.Errorf("tree (-pi +piweb):\n%s%v", diff, err)
			}
			if got := s.Name(); (want.Name == nil) != (got == "") || want.Name != nil && *want.Name != got {
				t.Errorf("name = %q, pi says %v", got, want.Name)
			}
		})
	}
}

// TestPi16Extract checks fork --at against pi 1.6.0's createBranchedSession
// (gen/gen.mjs wrote s1branch*, s3branch from s1 and s3): the same entries
// in the same order with the same members (pi re-chains every parentId and
// remaps a compaction kept from a dropped label), the same re-created
// labels, and the same context.
func TestPi16Extract(t *testing.T) {
	dir := filepath.Join("testdata", "pi-1.6.0", "gen-out")
	for _, c := range []struct{ src, branch string }{
		{"s1", "s1branch"}, {"s1", "s1branchAtLabel"}, {"s1", "s1branchInPlace"}, {"s3", "s3branch"},
	} {
		t.Run(c.branch, func(t *testing.T) {
			src, err := Load(filepath.Join(dir, c.src+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			pi, err := Load(filepath.Join(dir, c.branch+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			leaf := ""
			for _, e := range pi.Entries {
				if e.Type != "label" {
					leaf = e.ID
				}
			}
			if c.branch == "s1branchAtLabel" {
				leaf = src.ByID(leaf).ID // the label pi branched at is dropped; its parent is the last kept entry
				for _, e := range src.Entries {
					if e.Type == "label" && e.ParentID == leaf {
						leaf = e.ID
						break
					}
				}
			}
			data, err := src.Extract(leaf, "/src.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			ours := Parse(data)
			if len(ours.Entries) != len(pi.Entries) {
				t.Fatalf("%d entries, pi wrote %d", len(ours.Entries), len(pi.Entries))
			}
			for i, e := range pi.Entries {
				o := ours.Entries[i]
				if e.Type == "label" {
					if o.Type != "label" || o.Field("targetId") == nil || string(o.Field("targetId")) != string(e.Field("targetId")) ||
						string(o.Field("label")) != string(e.Field("label")) || o.Timestamp != e.Timestamp {
						t.Errorf("entry %d: %s, pi %s", i, o.Raw, e.Raw)
					}
					continue
				}
				if diff, err := pitest.DiffJSON(e.Raw, o.Raw); err != nil || diff != "" {
					t.Errorf("entry %d (-pi +piweb):\n%s%v", i, diff, err)
				}
			}
			want, _ := pi.Context("").MarshalJSON()
			got, _ := ours.Context("").MarshalJSON()
			if diff, err := pitest.DiffJSON(want, got); err != nil || diff != "" {
				t.Errorf("context (-pi's file +ours):\n%s%v", diff, err)
			}
		})
	}
}

// TestSanitizeName is pi 1.6's appendSessionInfo.
func TestSanitizeName(t *testing.T) {
	for in, want := range map[string]string{
		"  My\nfirst \r\n session  ": "My first   session",
		"two\nlines":                 "two lines",
		"a\r\r\n\nb":                 "a b",
		"\n":                         "",
		" plain ":                    "plain",
	} {
		if got := sanitizeName(in); got != want {
			t.Errorf("sanitizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPi16ListAll compares ListAll with pi 1.6.0's listAll() on Node 22.19
// (list/listAll.json, recorded by gen/list.mjs): membership (BOM files
// dropped, falsy lines skipped, messages without message dropped),
// readline's lone-CR lines, counts, first messages (never a system
// message), names and the order of ties (file mtime, then base name).
func TestPi16ListAll(t *testing.T) {
	agent := pitest.ListDir(t, filepath.Join("testdata", "pi-1.6.0", "list"))
	want := testkit.ReadFile(t, filepath.Join("testdata", "pi-1.6.0", "list", "listAll.json"))
	got, _ := json.Marshal(relPaths(t, filepath.Join(agent, "sessions"), ListAll(agent)))
	if diff, err := pitest.DiffJSON(want, got); err != nil || diff != "" {
		t.Errorf("listAll (-pi +piweb):\n%s%v", diff, err)
	}
}

// relPaths makes the listing's paths relative to dir.
func relPaths(t testing.TB, dir string, infos []Info) []Info {
	for i := range infos {
		rel, err := filepath.Rel(dir, infos[i].Path)
		if err != nil {
			t.Fatal(err)
		}
		infos[i].Path = filepath.ToSlash(rel)
	}
	return infos
}
