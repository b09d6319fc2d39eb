package pitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/testkit"
)

// fixture is a file in testdata/fixtures/pi-0.73.1.
func fixture(t *testing.T, name string) string {
	return filepath.Join(FixturesDir(t), "pi-0.73.1", name)
}

// withoutKey re-encodes a JSON object without one top-level key.
func withoutKey(t *testing.T, data []byte, key string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, key)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPinned checks every pinned pi: its launcher, the version it reports,
// and the version the oracle loads for it, all on the pinned node.
func TestPinned(t *testing.T) {
	if got := strings.TrimSpace(string(run(t, Node(t), "--version"))); got != NodeVersion {
		t.Errorf("node --version = %q, want %q", got, NodeVersion)
	}
	for _, v := range Versions {
		t.Run(string(v), func(t *testing.T) {
			bin := v.Bin(t)
			if !strings.HasSuffix(bin, filepath.Join("node_modules", ".bin", "pi")) {
				t.Errorf("Bin = %q", bin)
			}
			var version string
			v.OracleJSON(t, &version, "version")
			if version != string(v) {
				t.Errorf("oracle version = %q, want %q", version, v)
			}
		})
	}
	if PiBin(t) != V16.Bin(t) || PiBinVersion(t, V073) != V073.Bin(t) {
		t.Error("PiBin is not pi 1.6.0's launcher, or PiBinVersion not the asked one's")
	}
}

// TestPiRunsOnPinnedNode proves pi starts on the pinned node even when the
// PATH it inherits would find another first (pi 1.6 crashes on Node 20).
func TestPiRunsOnPinnedNode(t *testing.T) {
	bin := PiBin(t)
	env := NodeEnv(t, []string{"PATH=/usr/bin:/bin"})
	cmd := exec.Command(bin, "--version")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != string(V16) {
		t.Errorf("pi --version with NodeEnv = %q, %v", out, err)
	}
	if !strings.HasPrefix(os.Getenv("PATH"), filepath.Dir(Node(t))+string(os.PathListSeparator)) {
		t.Errorf("PATH = %q does not start with the pinned node's directory", os.Getenv("PATH"))
	}
}

func run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %q: %v", name, args, err)
	}
	return out
}

// TestOracleUsesPackageExports proves that the session module the oracle
// imports directly is the one the package's public index exports.
func TestOracleUsesPackageExports(t *testing.T) {
	var got struct {
		OK   bool            `json:"ok"`
		Same map[string]bool `json:"same"`
	}
	OracleJSON(t, &got, "check-exports")
	if !got.OK {
		t.Errorf("package index exports differ from dist/core/session-manager.js: %v", got.Same)
	}
}

// TestContextFixtures checks the oracle against buildSessionContext output
// saved by real pi 0.73.1 (the saved files also record the leafId they
// used), under both pis: 1.6.0 reads 0.73.1's files the same.
func TestContextFixtures(t *testing.T) {
	for _, v := range Versions {
		t.Run(string(v), func(t *testing.T) { testContextFixtures(t, v) })
	}
}

func testContextFixtures(t *testing.T, v Version) {
	file := fixture(t, "v3-basic-0.73.1.jsonl")
	o := v.StartOracle(t)
	CompareJSON(t, testkit.ReadFile(t, fixture(t, "v3-basic-0.73.1.context.json")), o.Call(t, "context", file))

	atError := testkit.ReadFile(t, fixture(t, "v3-basic-0.73.1.context-at-error-entry.json"))
	var leaf struct{ LeafID string }
	if err := json.Unmarshal(atError, &leaf); err != nil || leaf.LeafID == "" {
		t.Fatalf("fixture has no leafId: %v", err)
	}
	CompareJSON(t, withoutKey(t, atError, "leafId"), o.Call(t, "context", file, leaf.LeafID))
}

// TestListFixtures checks SessionManager.list against the saved listing of
// the same folder, taken elsewhere: paths are compared by base name.
func TestListFixtures(t *testing.T) {
	var want, got []map[string]any
	if err := json.Unmarshal(testkit.ReadFile(t, fixture(t, "list-0.73.1.json")), &want); err != nil {
		t.Fatal(err)
	}
	V073.OracleJSON(t, &got, "list", filepath.Dir(fixture(t, "list-0.73.1.json")))
	byName := func(list []map[string]any) map[string]map[string]any {
		m := map[string]map[string]any{}
		for _, s := range list {
			name := filepath.Base(s["path"].(string))
			s["path"] = name
			m[name] = s
		}
		return m
	}
	if diff := cmp.Diff(byName(want), byName(got)); diff != "" {
		t.Errorf("list mismatch (-want +got):\n%s", diff)
	}
}

// TestOpenLeavesFileAlone opens a v1 file, which pi migrates by rewriting
// it: the oracle must report the rewrite yet leave the given file as it was.
func TestOpenLeavesFileAlone(t *testing.T) {
	src := filepath.Join(FixturesDir(t), "pi-mono-v1", "before-compaction.jsonl")
	file := filepath.Join(t.TempDir(), "v1.jsonl")
	orig := testkit.ReadFile(t, src)
	if err := os.WriteFile(file, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Header struct {
			Version int `json:"version"`
		} `json:"header"`
		Rewritten     bool   `json:"rewritten"`
		RewrittenText string `json:"rewrittenText"`
		Entries       []struct {
			ID       string  `json:"id"`
			ParentID *string `json:"parentId"`
		} `json:"entries"`
	}
	OracleJSON(t, &got, "open", file)
	if !bytes.Equal(testkit.ReadFile(t, file), orig) {
		t.Fatal("oracle modified the file it was given")
	}
	if !got.Rewritten || got.Header.Version != 3 || got.RewrittenText == "" {
		t.Errorf("open of a v1 file: rewritten=%v version=%d; want a v3 rewrite", got.Rewritten, got.Header.Version)
	}
	if len(got.Entries) == 0 || got.Entries[0].ParentID != nil || got.Entries[0].ID == "" {
		t.Errorf("migrated entries lack ids: %+v", got.Entries[:min(2, len(got.Entries))])
	}
}

// idPattern matches the random parts of generated files: entry ids and
// uuidv7 session ids (whose time part stays monotonic across gen calls in
// one process, so it is not fixed by the seed either).
var idPattern = regexp.MustCompile(`"[0-9a-f]{8}"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestGenDeterministic checks that a seed fixes everything but pi's ids.
func TestGenDeterministic(t *testing.T) {
	for _, v := range Versions {
		t.Run(string(v), func(t *testing.T) { testGenDeterministic(t, v) })
	}
}

func testGenDeterministic(t *testing.T, v Version) {
	o := v.StartOracle(t)
	gen := func() (all []byte) {
		var files []string
		dir := t.TempDir()
		o.CallJSON(t, &files, "gen", "42", dir, "5")
		if len(files) != 5 {
			t.Fatalf("gen wrote %d files, want 5", len(files))
		}
		for _, f := range files {
			data := bytes.ReplaceAll(testkit.ReadFile(t, f), []byte(dir), []byte("DIR"))
			all = append(all, idPattern.ReplaceAll(data, []byte("ID"))...)
		}
		return all
	}
	if a, b := gen(), gen(); !bytes.Equal(a, b) {
		t.Error("gen 42 wrote different sessions twice")
	}
}

// TestDamaged asks every safe question about every damaged file, and checks
// that the unsafe ones are refused with code "cycle" instead of hanging.
// (contexts always answers; a looping leaf gets an error in byLeaf.)
func TestDamaged(t *testing.T) {
	for _, v := range Versions {
		t.Run(string(v), func(t *testing.T) { testDamaged(t, v) })
	}
}

func testDamaged(t *testing.T, v Version) {
	o := v.StartOracle(t)
	files := v.GenDamaged(t, 7)
	kinds := map[string]bool{}
	for _, f := range files {
		kinds[f.Damage] = true
		for _, cmd := range []string{"open", "tree", "tree-flat", "context", "contexts", "leaves"} {
			_, err := o.Try(cmd, f.File)
			var oe *Error
			switch safe := f.IsSafe(cmd); {
			case safe && err != nil:
				t.Errorf("%s %s (%s): %v", cmd, f.Damage, f.File, err)
			case !safe && f.OpenError == nil && cmd != "contexts" && !(errors.As(err, &oe) && oe.Code == "cycle"):
				t.Errorf("%s %s: want a cycle refusal, got %v", cmd, f.Damage, err)
			}
		}
	}
	for _, k := range []string{"none", "two-cycle", "self-parent", "duplicate-id-loop", "missing-header", "null-line", "bom", "crlf", "falsy-lines"} {
		if !kinds[k] {
			t.Errorf("gen-damaged wrote no %q file", k)
		}
	}
}

// TestBatchErrors checks that bad requests answer errors and keep the
// process usable.
func TestBatchErrors(t *testing.T) {
	o := StartOracle(t)
	var oe *Error
	if _, err := o.Try("no-such-command"); !errors.As(err, &oe) {
		t.Errorf("unknown command: err = %v, want *Error", err)
	}
	if _, err := o.Try("context", filepath.Join(t.TempDir(), "missing.jsonl")); !errors.As(err, &oe) || oe.Code != "ENOENT" {
		t.Errorf("missing file: err = %v, want ENOENT", err)
	}
	CompareJSON(t, []byte(`{"messages":[],"thinkingLevel":"off","model":null}`), o.Call(t, "context", fixture(t, "v3-basic-0.73.1.jsonl"), "null"))
}

// TestNodeUnit runs the oracle's own node tests (tools/pi/test).
func TestNodeUnit(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(PiDir(t), "test", "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tools/pi/test/*.test.mjs: %v", err)
	}
	cmd := exec.Command(Node(t), append([]string{"--test"}, files...)...)
	cmd.Dir = PiDir(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
}

func TestDiffJSON(t *testing.T) {
	tests := []struct {
		want, got string
		equal     bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2.0],"a":1e0}`, true},
		{`{"a":1}`, `{"a":"1"}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`{"a":null}`, `{}`, false},
	}
	for _, tt := range tests {
		diff, err := DiffJSON([]byte(tt.want), []byte(tt.got))
		if err != nil {
			t.Fatal(err)
		}
		if (diff == "") != tt.equal {
			t.Errorf("DiffJSON(%s, %s) = %q, want equal=%v", tt.want, tt.got, diff, tt.equal)
		}
	}
	if _, err := DiffJSON([]byte(`{`), []byte(`{}`)); err == nil {
		t.Error("DiffJSON accepted invalid JSON")
	}
}

// TestDeepTree checks a linear session too deep for JSON.stringify's
// recursion (and, nested, for encoding/json): tree still answers, and
// tree-flat decodes.
func TestDeepTree(t *testing.T) {
	const n = 6000
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/x"}` + "\n")
	parent := "null"
	for i := range n {
		id := fmt.Sprintf("%08x", i)
		fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"m","timestamp":1}}`+"\n", id, parent)
		parent = strconv.Quote(id)
	}
	file := filepath.Join(t.TempDir(), "linear.jsonl")
	testkit.WriteFile(t, file, b.String())
	o := StartOracle(t)
	if tree := o.Call(t, "tree", file); !bytes.HasPrefix(tree, []byte(`[{"entry":`)) || bytes.Count(tree, []byte(`"children"`)) != n {
		t.Errorf("tree: %d bytes, %d nodes", len(tree), bytes.Count(tree, []byte(`"children"`)))
	}
	var flat struct {
		Roots []int
		Nodes []struct{ Children []int }
	}
	o.CallJSON(t, &flat, "tree-flat", file)
	if len(flat.Roots) != 1 || len(flat.Nodes) != n || flat.Nodes[0].Children[0] != 1 {
		t.Errorf("tree-flat: %d roots, %d nodes", len(flat.Roots), len(flat.Nodes))
	}
}

func TestGen(t *testing.T) {
	files := Gen(t, 9, 3)
	if len(files) != 3 {
		t.Fatalf("Gen wrote %d files", len(files))
	}
	for _, f := range files {
		if data := testkit.ReadFile(t, f); !bytes.HasPrefix(data, []byte(`{"type":"session","version":3,`)) {
			t.Errorf("%s starts %.60q", f, data)
		}
	}
}

// TestGenCoversPi16 checks that a pi 1.6.0 corpus holds every kind of line
// 1.6 writes, so conformance tests over it exercise them all, and that a
// 0.73.1 corpus holds none of 1.6's entry types.
func TestGenCoversPi16(t *testing.T) {
	kinds := func(files []string) map[string]int {
		seen := map[string]int{}
		for _, f := range files {
			for line := range bytes.Lines(testkit.ReadFile(t, f)) {
				for _, k := range lineKinds(t, line) {
					seen[k]++
				}
			}
		}
		return seen
	}
	got := kinds(Gen(t, 1, 30))
	for _, k := range []string{"message:system", "context_edit:null", "context_edit:content", "usage", "compaction:usage",
		"compaction:systemMessage", "compaction:retain-none", "compaction:kept-label", "branch_summary:usage",
		"thinking:max", "name:sanitised", "assistant:durationMs", "assistant:thinkingLevel", "assistant:deferred",
		"usage:reasoning", "usage:cacheWrite1h", "toolResult:durationMs", "toolResult:nestedCalls", "custom_message", "label"} {
		if got[k] == 0 {
			t.Errorf("pi 1.6.0 corpus has no %s line", k)
		}
	}
	old := kinds(V073.Gen(t, 1, 30))
	for _, k := range []string{"message:system", "context_edit:null", "usage", "thinking:max"} {
		if old[k] != 0 {
			t.Errorf("pi 0.73.1 corpus has %d %s lines", old[k], k)
		}
	}
}

// lineKinds names what one session line is and the 1.6 features it has.
func lineKinds(t *testing.T, line []byte) []string {
	var e struct {
		Type             string
		ID               string
		FirstKeptEntryID string
		ThinkingLevel    string
		Name             *string
		Usage            map[string]any
		SystemMessage    map[string]any
		Replacement      json.RawMessage
		Message          map[string]any
	}
	if err := json.Unmarshal(line, &e); err != nil {
		t.Fatalf("generated line %.80q: %v", line, err)
	}
	kinds := []string{e.Type}
	add := func(ok bool, k string) {
		if ok {
			kinds = append(kinds, k)
		}
	}
	switch e.Type {
	case "message":
		role, _ := e.Message["role"].(string)
		kinds = append(kinds, "message:"+role)
		for _, f := range []string{"durationMs", "thinkingLevel", "deferred", "nestedCalls"} {
			add(e.Message[f] != nil, role+":"+f)
		}
		if u, ok := e.Message["usage"].(map[string]any); ok {
			add(u["reasoning"] != nil, "usage:reasoning")
			add(u["cacheWrite1h"] != nil, "usage:cacheWrite1h")
		}
	case "context_edit":
		add(string(e.Replacement) == "null", "context_edit:null")
		add(string(e.Replacement) != "null", "context_edit:content")
	case "compaction":
		add(e.Usage != nil, "compaction:usage")
		add(e.SystemMessage != nil, "compaction:systemMessage")
		add(e.FirstKeptEntryID == e.ID, "compaction:retain-none")
		add(keptLabels[e.FirstKeptEntryID], "compaction:kept-label")
	case "branch_summary":
		add(e.Usage != nil, "branch_summary:usage")
	case "thinking_level_change":
		add(e.ThinkingLevel == "max", "thinking:max")
	case "session_info":
		add(e.Name != nil && strings.Contains(*e.Name, "   "), "name:sanitised")
	case "label":
		keptLabels[e.ID] = true
	}
	return kinds
}

// keptLabels remembers label ids seen so far (files are read in order, and
// a compaction's kept range starts before it).
var keptLabels = map[string]bool{}
