package pisession

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/testkit"
)

// checkScan compares ScanTree of data with the parse's detail parts; it
// reports whether the scan took the file.
func checkScan(t *testing.T, name string, data []byte) bool {
	t.Helper()
	got, ok, err := ScanTree(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s := Parse(data)
	lineProblems := slices.ContainsFunc(s.Problems, func(p Problem) bool { return !structural[p.Kind] })
	if !ok {
		if s.Header != nil && !lineProblems && !s.Migrated {
			t.Errorf("%s: the scan refused a file the parse finds only %v in", name, s.Problems)
		}
		return false
	}
	if lineProblems || s.Migrated || s.Header == nil {
		t.Fatalf("%s: the scan took a file the parse finds %v (migrated %v)", name, s.Problems, s.Migrated)
	}
	labels := s.LabelMap()
	want := TreeScan{Header: s.Header.Raw, Tree: s.CompactTree(labels), Labels: labels, Problems: s.Problems}
	if l := s.Leaf(); l != nil {
		want.Leaf = l.ID
	}
	if d := cmp.Diff(want, *got); d != "" {
		t.Errorf("%s: scan differs from the parse (-parse +scan):\n%s", name, d)
	}
	return true
}

// structural are the problems a file's links have, which ScanTree finds
// as Parse does; any other problem makes it refuse the file.
var structural = map[ProblemKind]bool{MissingID: true, DuplicateID: true, Orphan: true, Cycle: true}

// TestScanTreeMatchesParse checks ScanTree against the parse on every
// session file under the repository's testdata (real pi's, damaged ones).
func TestScanTreeMatchesParse(t *testing.T) {
	var taken, all int
	for _, root := range []string{"testdata", "../internal/pitest/testdata", "../cmd/piweb/testdata", "../internal/server/testdata"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return nil
			}
			data := testkit.ReadFile(t, path)
			all++
			if checkScan(t, path, data) {
				taken++
			}
			return nil
		})
	}
	if taken < 20 || taken == all {
		t.Errorf("the scan took %d of %d files: want most of them, not the damaged ones", taken, all)
	}
	t.Logf("the scan took %d of %d files", taken, all)
}

// TestScanTreeShapes checks the lines a scan must read as Parse does:
// longer than its buffer, blank, without final newline, labels set and
// cleared; and the ones it must refuse.
func TestScanTreeShapes(t *testing.T) {
	h := `{"type":"session","version":3,"id":"h","timestamp":"t","cwd":"/"}`
	m := func(id, parent, text string) string {
		return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"t","message":{"role":"user","content":"` + text + `"}}`
	}
	lb := func(id, target, label string) string {
		return `{"type":"label","id":"` + id + `","parentId":"a","timestamp":"t","targetId":"` + target + `","label":` + label + `}`
	}
	long := strings.Repeat("word ", 120_000) // 600 KB: longer than the reader's buffer
	for _, tc := range []struct {
		name  string
		lines []string
		taken bool
	}{
		{"plain", []string{h, m("a", "null", "hi"), m("b", `"a"`, "there")}, true},
		{"long line", []string{h, m("a", "null", long), m("b", `"a"`, long)}, true},
		{"blank lines", []string{"", h, "  ", m("a", "null", "hi"), ""}, true},
		{"labels", []string{h, m("a", "null", "hi"), lb("l1", "a", `"one"`), lb("l2", "a", `""`), lb("l3", "a", `"two"`)}, true},
		{"no final newline", []string{h, m("a", "null", "hi") + "\x00"}, true},
		{"long, no final newline", []string{h, m("a", "null", long), m("b", `"a"`, long) + "\x00"}, true},
		{"long, cut short", []string{h, m("a", "null", long), m("b", `"a"`, long)[:400_000] + "\x00"}, false},
		{"crlf", []string{h + "\r", m("a", "null", "hi")}, false},
		{"bad line", []string{h, m("a", "null", "hi"), "{"}, false},
		{"duplicate id", []string{h, m("a", "null", "hi"), m("a", `"a"`, "hi"), m("b", `"a"`, "hi"), m("a", `"b"`, "hi")}, true},
		{"parent later", []string{h, m("a", `"b"`, "hi"), m("b", "null", "hi")}, true},
		{"orphan", []string{h, m("a", `"zz"`, "hi"), m("b", `{"x":1}`, "hi"), m("c", `7`, "hi")}, true},
		{"cycle", []string{h, m("a", `"c"`, "hi"), m("b", `"a"`, "hi"), m("c", `"b"`, "hi"), m("d", `"d"`, "hi")}, true},
		{"missing id", []string{h, strings.Replace(m("a", "null", "hi"), `"id":"a"`, `"id":5`, 1), m("b", `5`, "hi"),
			strings.Replace(m("x", `"b"`, "hi"), `"id":"x",`, ``, 1)}, true},
		{"old version", []string{strings.Replace(h, `"version":3`, `"version":2`, 1), m("a", "null", "hi")}, false},
		{"no header", []string{m("a", "null", "hi")}, false},
		{"empty", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := strings.Join(tc.lines, "\n") + "\n"
			data = strings.ReplaceAll(data, "\x00\n", "") // the line left without newline
			if got := checkScan(t, tc.name, []byte(data)); got != tc.taken {
				t.Errorf("taken = %v, want %v", got, tc.taken)
			}
		})
	}
}

// FuzzScanTree checks that whatever ScanTree takes, it reads as Parse.
func FuzzScanTree(f *testing.F) {
	f.Add([]byte(hdr + "\n" + e1 + "\n" + e2 + "\n"))
	f.Add([]byte(`{"type":"session","version":3,"id":"x"}` + "\n" + `{"type":"label","id":"l","targetId":"l","label":"x"}`))
	f.Add([]byte(`{"type":"session","version":3,"id":"x"}` + "\n" + `{"id":"a","parentId":"b"}` + "\n" + `{"id":"b","parentId":"a"}` +
		"\n" + `{"id":"a","parentId":7}` + "\n" + `{"id":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScan(t, "fuzz", data)
	})
}

// TestTreeScannerResumes: a TreeScanner that read a file up to any line's
// end and then goes on with the rest answers as ScanTree of the whole.
func TestTreeScannerResumes(t *testing.T) {
	h := `{"type":"session","version":3,"id":"h","timestamp":"t","cwd":"/"}`
	data := []byte(h + "\n" + e1 + "\n" + `{"type":"label","id":"l","parentId":"a","timestamp":"t","targetId":"a","label":"x"}` + "\n" + e2 + "\n" +
		`{"type":"message","id":"c","parentId":"zz","timestamp":"t","message":{"role":"user","content":"late"}}` + "\n")
	want, ok, err := ScanTree(bytes.NewReader(data))
	if !ok || err != nil {
		t.Fatalf("ScanTree: %v %v", ok, err)
	}
	for i, b := range data {
		if b != '\n' {
			continue
		}
		s := NewTreeScanner()
		if ok, err := s.Read(bytes.NewReader(data[:i+1])); !ok || err != nil || s.Size() != int64(i+1) || !s.Resumable() {
			t.Fatalf("prefix %d: %v %v, size %d", i+1, ok, err, s.Size())
		}
		s.Result() // a result in between changes nothing
		if ok, err := s.Read(bytes.NewReader(data)); !ok || err != nil {
			t.Fatalf("rest after %d: %v %v", i+1, ok, err)
		}
		got, _, _ := s.Result()
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("resumed after %d bytes (-whole +resumed):\n%s", i+1, d)
		}
	}
}
