package pisession

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/corpus"
)

// TestTailMatchesContext is the property PlanTail rests on: whenever it
// plans a file's context from the branch rows, every page equals the full
// parse's (ContextAt of the file's leaf), for generated sessions with
// branches, compactions, labels and model changes, damaged ones, the
// recorded fixtures, and each of them with entries appended that only a
// read of their line can count (custom messages, system messages, a
// compaction with a system message, an empty branch summary, a message
// entry without message, a context edit, which it must refuse).
func TestTailMatchesContext(t *testing.T) {
	files := tailInputs(t)
	planned := 0
	for name, data := range files {
		for k, extra := range tailExtras {
			if checkTail(t, fmt.Sprintf("%s+%d", name, k), append(bytes.Clone(data), extra(data)...)) {
				planned++
			}
		}
	}
	t.Logf("planned %d of %d variants", planned, len(files)*len(tailExtras))
	if planned < len(files) {
		t.Errorf("planned %d of %d variants of %d files: the rows should answer most", planned, len(files)*len(tailExtras), len(files))
	}
}

// tailInputs returns the files of the property: generated, damaged and
// recorded sessions.
func tailInputs(t *testing.T) map[string][]byte {
	dir := t.TempDir()
	if _, err := corpus.Generate(filepath.Join(dir, "gen"), corpus.Options{Files: 60, Bytes: 12 << 20, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if _, err := corpus.Damaged(filepath.Join(dir, "bad"), corpus.DamageOptions{Files: 12, Bytes: 3 << 20, HugeLine: 64 << 10, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, root := range []string{dir, "testdata", "../pitest/testdata"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".jsonl") {
				if data, err := os.ReadFile(p); err == nil {
					out[p] = data
				}
			}
			return nil
		})
	}
	if len(out) < 80 {
		t.Fatalf("only %d input files", len(out))
	}
	return out
}

// tailExtras append entries to a file, chained from its last entry.
var tailExtras = []func(data []byte) []byte{
	func([]byte) []byte { return nil },
	func(data []byte) []byte {
		return chainFrom(data,
			`{"type":"custom_message","customType":"x","content":"hi","display":true,"timestamp":"2026-01-01T00:00:00.000Z"}`,
			`{"type":"message","message":{"role":"system","content":null}}`,
			`{"type":"branch_summary","summary":"","fromId":"a"}`,
			`{"type":"message"}`,
			`{"type":"message","message":{"role":"assistant","content":[],"provider":"p","model":"m"}}`)
	},
	func(data []byte) []byte {
		return chainFrom(data,
			`{"type":"message","message":{"role":"user","content":"kept"}}`,
			`{"type":"compaction","summary":"s","firstKeptEntryId":"t0","tokensBefore":5,"systemMessage":{"role":"system","content":"sys"},"timestamp":"2026-01-01T00:00:00.000Z"}`,
			`{"type":"thinking_level_change","thinkingLevel":"high"}`)
	},
	func(data []byte) []byte {
		return chainFrom(data, `{"type":"context_edit","targetId":"t-none","replacement":null}`)
	},
}

// chainFrom returns lines that continue the file's last entry, with ids
// t0, t1, ...
func chainFrom(data []byte, lines ...string) []byte {
	s := Parse(data)
	parent := "null"
	if l := s.Leaf(); l != nil && l.ID != "" {
		parent = fmt.Sprintf("%q", l.ID)
	}
	var b bytes.Buffer
	if len(data) > 0 && data[len(data)-1] != '\n' {
		b.WriteByte('\n')
	}
	for i, l := range lines {
		fmt.Fprintf(&b, `{"id":"t%d","parentId":%s,%s`+"\n", i, parent, l[1:])
		parent = fmt.Sprintf(`"t%d"`, i)
	}
	return b.Bytes()
}

// rowsOf returns the branch rows an index keeps of the path to leaf.
func rowsOf(s *Session, leaf *Entry) []BranchRow {
	var rows []BranchRow
	for i, e := range s.PathTo(leaf) {
		r := BranchRow{ID: e.ID, Type: e.Type, Role: e.Role(), Off: e.Offset, Len: int64(len(e.Raw)), Pos: i}
		if e.HasParent() {
			r.ParentID = e.ParentID
		}
		rows = append(rows, r)
	}
	return rows
}

// sparse is the choice of rows an index makes (index.Tail): before the
// context's first entry only the rows that set the model and thinking
// level, compactions and context edits, and the last assistant message.
func sparse(rows []BranchRow, data []byte) []BranchRow {
	k, from := -1, 0
	for i, r := range rows {
		if r.Type == "compaction" {
			k = i
		}
	}
	if k >= 0 {
		from = k
		comp := newEntry(data[rows[k].Off:rows[k].Off+rows[k].Len], 0, 0, nil)
		if keep, ok := comp.String("firstKeptEntryId"); ok {
			if j := slices.IndexFunc(rows[:k], func(r BranchRow) bool { return r.ID == keep }); j >= 0 {
				from = j
			}
		}
	}
	lastAsst := -1
	for i, r := range rows {
		if r.Type == "message" && r.Role == "assistant" {
			lastAsst = i
		}
	}
	var out []BranchRow
	for i, r := range rows[:from] {
		switch r.Type {
		case "thinking_level_change", "model_change", "compaction", "context_edit":
			out = append(out, r)
		default:
			if i == lastAsst {
				out = append(out, r)
			}
		}
	}
	return append(out, rows[from:]...)
}

func readFrom(data []byte) ReadLine {
	return func(off, n int64) ([]byte, error) {
		if off < 0 || off+n > int64(len(data)) {
			return nil, fs.ErrInvalid
		}
		return data[off : off+n], nil
	}
}

// checkTail compares the planned context of data with the full parse's
// and reports whether it was planned.
func checkTail(t *testing.T, name string, data []byte) bool {
	t.Helper()
	s := Parse(data)
	leaf := s.Leaf()
	if s.Header == nil || leaf == nil {
		return false
	}
	rows := rowsOf(s, leaf)
	tail, ok := PlanTail(s.Header.Raw, rows, readFrom(data))
	if !ok {
		return false
	}
	part, ok := PlanTail(s.Header.Raw, sparse(rows, data), readFrom(data))
	if !ok {
		t.Errorf("%s: planned from every row but not from the index's choice", name)
	}
	want := s.ContextAt(leaf)
	for _, tl := range []*Tail{tail, part} {
		if tl != nil {
			compareTail(t, name, tl, leaf, want)
		}
	}
	return true
}

// compareTail compares the plan and pages of tail with the parse's
// context want.
func compareTail(t *testing.T, name string, tail *Tail, leaf *Entry, want Context) {
	t.Helper()
	got := struct {
		Total, System   int
		Thinking, Model string
		Leaf            string
		Edits           int
	}{tail.Total, tail.System, string(tail.ThinkingLevel), string(tail.Model), tail.LeafID, 0}
	exp := got
	exp.Total, exp.System, exp.Thinking, exp.Model = len(want.Messages), SystemMessages(want.Messages), string(want.ThinkingLevel), string(want.Model)
	exp.Leaf, exp.Edits = leaf.ID, len(want.Edits)
	if diff := cmp.Diff(exp, got); diff != "" {
		t.Errorf("%s: plan (-parse +tail):\n%s", name, diff)
		return
	}
	n := len(want.Messages)
	r := rand.New(rand.NewPCG(uint64(n), 1))
	for _, b := range [][2]int{{max(0, n-60), n}, {0, n}, {0, 0}, {max(0, n/2-30), n / 2}, {r.IntN(n + 1), n}} {
		start, end := min(b[0], b[1]), max(b[0], b[1])
		msgs, ids, ok := tail.Page(start, end)
		if !ok {
			t.Errorf("%s: page [%d,%d) refused", name, start, end)
			continue
		}
		if diff := cmp.Diff(strs(want.Messages[start:end]), strs(msgs)); diff != "" {
			t.Errorf("%s: page [%d,%d) messages (-parse +tail):\n%s", name, start, end, diff)
		}
		if diff := cmp.Diff(want.EntryIDs[start:end], ids, cmpEmpty); diff != "" {
			t.Errorf("%s: page [%d,%d) ids (-parse +tail):\n%s", name, start, end, diff)
		}
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
})

func strs(msgs [][]byte) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = string(m)
	}
	return out
}
