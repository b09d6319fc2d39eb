package pisession

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// The conformance tests ask real pi 0.73.1 (tools/pi, through the pitest
// oracle) about every file: the shared fixtures, sessions generated with
// pi's own SessionManager, and damaged copies of them. piweb must agree on
// the context at every entry, the tree, the name and the listing. pi's
// answers are the oracle; the spec is not.

// conformanceFile is a file and the oracle questions pi can answer for it
// (pi hangs on parent cycles and throws on null lines).
type conformanceFile struct {
	path string
	safe map[string]bool
}

func allSafe(path string) conformanceFile {
	return conformanceFile{path, map[string]bool{"open": true, "tree-flat": true, "context": true, "contexts": true}}
}

func conformanceFiles(t *testing.T, o *pitest.Batch) []conformanceFile {
	var files []conformanceFile
	old := bytes.HasPrefix(o.Call(t, "version"), []byte(`"0.`))
	for _, f := range sharedFixtures(t) {
		if old && strings.Contains(filepath.ToSlash(f), "1.6.0/") {
			continue // pi 0.73 reads files pi 1.x wrote with 0.73's semantics; piweb follows 1.6
		}
		files = append(files, allSafe(f))
	}
	for _, f := range exampleFiles(t) {
		files = append(files, allSafe(f))
	}
	var generated []string
	o.CallJSON(t, &generated, "gen", "7", t.TempDir(), "12")
	for _, f := range generated {
		files = append(files, allSafe(f))
	}
	var manifest struct {
		Files []struct {
			File string   `json:"file"`
			Safe []string `json:"safe"`
		} `json:"files"`
	}
	if old {
		// Damaged files are read differently by pi 1.6 (no BOM, skipped
		// null lines, readline's lone CR, tie order), which piweb follows.
		return files
	}
	o.CallJSON(t, &manifest, "gen-damaged", "3", t.TempDir())
	for _, f := range manifest.Files {
		cf := conformanceFile{f.File, map[string]bool{}}
		for _, s := range f.Safe {
			cf.safe[s] = true
		}
		files = append(files, cf)
	}
	return files
}

// exampleFiles are the examples' session (example_test.go), so what they
// print is pi's, and what the library's writes make of it: a copy with a
// label appended (Append) and a fork of its other branch (Fork).
func exampleFiles(t *testing.T) []string {
	src, _ := filepath.Glob(filepath.Join("testdata", "example", "sessions", "*", "*.jsonl"))
	if len(src) != 1 {
		t.Fatalf("example sessions: %v, want one", src)
	}
	data := testkit.ReadFile(t, src[0])
	appended := filepath.Join(t.TempDir(), "example-appended.jsonl")
	testkit.WriteFile(t, appended, string(data))
	s := Parse(data)
	if _, err := Append(appended, s, s.LabelLine("a0000002", "license")); err != nil {
		t.Fatal(err)
	}
	forked, err := Fork(appended, s, "a0000002")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(src[0])
	return []string{abs, appended, forked}
}

// TestConformance asks pi 1.6.0 about every file, and pi 0.73.1 about the
// files 0.73.1 wrote (both read those alike).
func TestConformance(t *testing.T) {
	t.Parallel() // one of the package's long tests; they share nothing and run side by side
	for _, v := range []pitest.Version{pitest.V16, pitest.V073} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel() // an oracle each
			conformance(t, v.StartOracle(t))
		})
	}
}

func conformance(t *testing.T, o *pitest.Batch) {
	for _, f := range conformanceFiles(t, o) {
		t.Run(filepath.Base(f.path), func(t *testing.T) {
			s, err := Load(f.path)
			if err != nil {
				t.Fatal(err)
			}
			path := f.path
			if s.Migrated {
				path = migratedCopy(t, s)
			}
			if f.safe["contexts"] {
				compareContexts(t, o, path, s)
			}
			if f.safe["context"] {
				got, _ := s.Context("").MarshalJSON()
				pitest.CompareJSON(t, o.Call(t, "context", path), got)
			}
			if f.safe["tree-flat"] {
				pitest.CompareJSON(t, o.Call(t, "tree-flat", path), FlatTreeJSON(s.Tree()))
			}
			if f.safe["open"] {
				compareName(t, o, path, s)
			}
		})
	}
}

// compareContexts compares the context at up to 40 entries (all of a small
// file, an even sample of a large one) with one oracle call. Migration gives
// random ids, differently on each open, so for an old file pi is asked about
// piweb's migrated copy (TestMigrationMatchesPi checks the migration itself).
func compareContexts(t *testing.T, o *pitest.Batch, path string, s *Session) {
	args := []string{"contexts", path}
	var ours []string
	step := max(1, len(s.Entries)/40)
	for i := 0; i < len(s.Entries); i += step {
		if s.Entries[i].ID != "" {
			args = append(args, s.Entries[i].ID)
			ours = append(ours, s.Entries[i].ID)
		}
	}
	var want struct{ ByLeaf map[string]json.RawMessage }
	o.CallJSON(t, &want, args...)
	for _, id := range ours {
		got, _ := s.Context(id).MarshalJSON()
		if diff, err := pitest.DiffJSON(want.ByLeaf[id], got); err != nil || diff != "" {
			t.Errorf("context at %s (-pi +piweb):\n%s%v", id, diff, err)
		}
	}
}

// migratedCopy writes piweb's migration of an old file to a temp file, so
// that pi is asked about the same ids piweb has.
func migratedCopy(t *testing.T, s *Session) string {
	path := filepath.Join(t.TempDir(), "migrated.jsonl")
	if err := os.WriteFile(path, s.Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func compareName(t *testing.T, o *pitest.Batch, path string, s *Session) {
	var want struct {
		Name *string `json:"name"`
	}
	o.CallJSON(t, &want, "open", path)
	got := s.Name()
	if (want.Name == nil) != (got == "") || (want.Name != nil && *want.Name != got) {
		t.Errorf("name = %q, pi says %v", got, want.Name)
	}
}

// TestConformanceListing lists a folder of all conformance files with pi's
// listAll and with piweb's, and compares them in order.
func TestConformanceListing(t *testing.T) {
	t.Parallel() // one of the package's long tests; they share nothing and run side by side
	for _, v := range []pitest.Version{pitest.V16, pitest.V073} {
		t.Run(string(v), func(t *testing.T) { conformanceListing(t, v.StartOracle(t)) })
	}
}

func conformanceListing(t *testing.T, o *pitest.Batch) {
	agent := t.TempDir()
	dir := filepath.Join(agent, "sessions", "--conformance--")
	os.MkdirAll(dir, 0o755)
	for i, f := range conformanceFiles(t, o) {
		data := testkit.ReadFile(t, f.path)
		os.WriteFile(filepath.Join(dir, filepath.Base(f.path)), data, 0o644)
		_ = i
	}
	want := withoutAllText(t, o.Call(t, "listall", agent))
	infos := ListAll(agent)
	if bytes.HasPrefix(o.Call(t, "version"), []byte(`"0.`)) {
		// pi 0.73 orders ties by readdir order, pi 1.6 by mtime and name.
		want = byPath(t, want)
		slices.SortFunc(infos, func(a, b Info) int { return strings.Compare(a.Path, b.Path) })
	}
	got, err := json.Marshal(infos)
	if err != nil {
		t.Fatal(err)
	}
	pitest.CompareJSON(t, want, got)
}

// byPath sorts a JSON listing by path.
func byPath(t *testing.T, raw []byte) []byte {
	var list []map[string]any
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(list, func(a, b map[string]any) int { return strings.Compare(a["path"].(string), b["path"].(string)) })
	out, _ := json.Marshal(list)
	return out
}

func withoutAllText(t *testing.T, raw []byte) []byte {
	var list []map[string]any
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	for _, m := range list {
		delete(m, "allMessagesText")
	}
	out, _ := json.Marshal(list)
	return out
}
