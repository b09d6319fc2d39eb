package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"piweb/internal/pitest"
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
			if diff, err := pitest.DiffJSON(want.Tree, flatTreeJSON(s.Tree())); err != nil || diff != "" {
				t.Errorf("tree (-pi +piweb):\n%s%v", diff, err)
			}
			if got := s.Name(); (want.Name == nil) != (got == "") || want.Name != nil && *want.Name != got {
				t.Errorf("name = %q, pi says %v", got, want.Name)
			}
		})
	}
}
