package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/fakellm"
	"piweb/internal/testkit"
)

type fileEntry struct {
	Type     string `json:"type"`
	ID       string `json:"id"`
	ParentID string `json:"parentId"`
	TargetID string `json:"targetId"`
	Label    string `json:"label"`
	FromID   string `json:"fromId"`
	Message  struct {
		Role string `json:"role"`
	} `json:"message"`
}

func readEntries(t *testing.T, file string) []fileEntry {
	t.Helper()
	b := testkit.ReadFile(t, file)
	var out []fileEntry
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		var e fileEntry
		json.Unmarshal([]byte(line), &e)
		out = append(out, e)
	}
	return out
}

func messages(es []fileEntry, role string) []fileEntry {
	var out []fileEntry
	for _, e := range es {
		if e.Type == "message" && e.Message.Role == role {
			out = append(out, e)
		}
	}
	return out
}

func TestWriteBridge(t *testing.T) {
	dir := t.TempDir() + "/x"
	p1, err := WriteBridge(dir)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := WriteBridge(dir)
	if err != nil || p1 != p2 {
		t.Fatalf("second write: %s %v", p2, err)
	}
	st, _ := os.Stat(dir)
	if st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", st.Mode())
	}
}

// TestWriteBridgeRefusesSharedDir is issue 17.2: pi runs the bridge file,
// so a folder another user owns or can write to is refused, and the
// fallback without a cache dir is a per-user folder, private.
func TestWriteBridgeRefusesSharedDir(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		ok    bool
	}{
		{"new", func(*testing.T, string) {}, true},
		{"ours 0700", func(t *testing.T, dir string) { mkdir(t, dir, 0o700) }, true},
		{"group-writable", func(t *testing.T, dir string) { mkdir(t, dir, 0o770) }, false},
		{"world-readable", func(t *testing.T, dir string) { mkdir(t, dir, 0o755) }, false},
		{"symlink", func(t *testing.T, dir string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			mkdir(t, target, 0o700)
			if err := os.Symlink(target, dir); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"another user's", func(t *testing.T, dir string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to give the folder to another user")
			}
			mkdir(t, dir, 0o700)
			if err := os.Chown(dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"in another user's parent", func(t *testing.T, dir string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to give the folder to another user")
			}
			if err := os.Chown(filepath.Dir(dir), 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "piweb")
			tt.setup(t, dir)
			path, err := WriteBridge(dir)
			if tt.ok != (err == nil) {
				t.Fatalf("WriteBridge = %q, %v; want success %v", path, err, tt.ok)
			}
			if !tt.ok && !errors.Is(err, ErrUnsafeDir) {
				t.Errorf("error %v is not ErrUnsafeDir", err)
			}
			if !tt.ok && path != "" {
				t.Errorf("a file was written: %s", path)
			}
		})
	}
	t.Run("fallback", func(t *testing.T) {
		t.Setenv("HOME", "")
		t.Setenv("XDG_CACHE_HOME", "")
		t.Setenv("TMPDIR", t.TempDir())
		dir := DefaultBridgeDir()
		if !strings.Contains(dir, fmt.Sprintf("piweb-%d", os.Getuid())) {
			t.Errorf("fallback dir %s is not per user", dir)
		}
		if _, err := WriteBridge(dir); err != nil {
			t.Fatal(err)
		}
	})
}

func mkdir(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

func TestLiveTreeAndLabels(t *testing.T) { eachPi(t, testLiveTreeAndLabels) }

func testLiveTreeAndLabels(t *testing.T, r *rig) {
	l := r.live(r.supervisor(nil))
	l.turn("first", fakellm.Text("one"))
	l.turn("second", fakellm.Text("two"))
	l.llm.Enqueue(fakellm.Text("three"))
	file := l.w.Key()
	es := readEntries(t, file)
	asst := messages(es, "assistant")
	users := messages(es, "user")

	t.Run("plain", func(t *testing.T) {
		res, err := l.w.NavigateTree(l.ctx, users[1].ID, TreeOptions{})
		if err != nil || res.Leaf != asst[0].ID || res.EditorText != "second" {
			t.Fatalf("navigate to user msg: %+v %v (want leaf %s)", res, err, asst[0].ID)
		}
		leaf, err := l.w.Leaf(l.ctx)
		if err != nil || leaf != asst[0].ID {
			t.Errorf("Leaf = %q %v", leaf, err)
		}
		from := len(l.rec.snapshot())
		l.w.Prompt(l.ctx, "branch", PromptOptions{})
		l.rec.wait(t, from, isPhase(PhaseIdle))
		es := readEntries(t, file)
		u := messages(es, "user")
		if last := u[len(u)-1]; last.ParentID != asst[0].ID {
			t.Errorf("new message parent %s, want %s (in-place branch)", last.ParentID, asst[0].ID)
		}
	})
	t.Run("summary", func(t *testing.T) {
		n := len(l.llm.Requests())
		res, err := l.w.NavigateTree(l.ctx, asst[1].ID, TreeOptions{Summarize: true, Label: "back"})
		if err != nil || res.Leaf == asst[1].ID || res.Leaf == "" {
			t.Fatalf("navigate with summary: %+v %v", res, err)
		}
		reqs := l.llm.Requests()
		if len(reqs) != n+1 || reqs[n].Kind() == fakellm.KindChat {
			t.Errorf("no summarization request (%d requests)", len(reqs)-n)
		}
		es := readEntries(t, file)
		var sum *fileEntry
		for i := range es {
			if es[i].Type == "branch_summary" {
				sum = &es[i]
			}
		}
		if sum == nil || sum.ParentID != asst[1].ID {
			t.Fatalf("branch_summary entry %+v, want child of %s", sum, asst[1].ID)
		}
		// The label entry on the summary is itself a tree node and the leaf.
		if last := es[len(es)-1]; last.Type != "label" || last.TargetID != sum.ID || last.Label != "back" || last.ID != res.Leaf {
			t.Errorf("label on summary: %+v, leaf %s", last, res.Leaf)
		}
		// Issue 14.2: the summary and label pi wrote are its own writes,
		// never an outside change, and the session goes on from them.
		if err := l.w.CheckOutside(); err != nil || l.w.Stale() {
			t.Fatalf("pi's branch summary taken for an outside write (stale=%v, %v)", l.w.Stale(), err)
		}
		from := len(l.rec.snapshot())
		l.llm.Enqueue(fakellm.Text("after the summary"))
		if err := l.w.Prompt(l.ctx, "go on", PromptOptions{}); err != nil {
			t.Fatalf("prompt after continuing with a summary: %v", err)
		}
		l.rec.wait(t, from, isPhase(PhaseIdle))
		if u := messages(readEntries(t, file), "user"); u[len(u)-1].ParentID != res.Leaf {
			t.Errorf("prompt parent %s, want the summary's label %s", u[len(u)-1].ParentID, res.Leaf)
		}
	})
	t.Run("label", func(t *testing.T) {
		if err := l.s.SetLabel(l.ctx, file, asst[0].ID, "checkpoint"); err != nil {
			t.Fatal(err)
		}
		es := readEntries(t, file)
		if last := es[len(es)-1]; last.Type != "label" || last.TargetID != asst[0].ID || last.Label != "checkpoint" {
			t.Errorf("label entry %+v", last)
		}
		if err := l.w.SetLabel(l.ctx, "nope", "x"); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("bad target: %v", err)
		}
	})
	// None of the bridge's answers leaked to subscribers.
	for _, e := range l.rec.snapshot() {
		if strings.Contains(string(e.Raw), bridgeStatusPrefix) {
			t.Errorf("bridge answer published: %s", e.Raw)
		}
	}
}

func TestLiveNoBridge(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(func(c *Config) { c.BridgeDir = "" })
	ctx := ctxT(t)
	w, err := s.StartNew(ctx, r.work)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetLabel(ctx, "x", "y"); err != ErrNoBridge {
		t.Errorf("err = %v, want ErrNoBridge", err)
	}
	if len(r.llm.Requests()) != 0 {
		t.Error("a bridge command reached the LLM")
	}
}

// TestLiveOfflineLabel writes a label with no worker (straight to the
// file), then checks a pi started on the file has it as its leaf.
func TestLiveOfflineLabel(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(nil)
	file := r.seedSession(s)
	asst := messages(readEntries(t, file), "assistant")
	ctx := ctxT(t)
	if err := s.SetLabel(ctx, file, asst[0].ID, "offline"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSessionName(ctx, file, "named offline"); err != nil {
		t.Fatal(err)
	}
	es := readEntries(t, file)
	if l := es[len(es)-2]; l.Type != "label" || l.TargetID != asst[0].ID || l.Label != "offline" {
		t.Fatalf("label entry %+v", l)
	}
	before := fileSize(t, file)
	w, err := s.Worker(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	if after := fileSize(t, file); after != before {
		t.Errorf("a cold start on the session wrote to it: %d -> %d bytes", before, after)
	}
	if leaf, err := w.Leaf(ctx); err != nil || leaf != es[len(es)-1].ID {
		t.Errorf("pi leaf %q %v, want the session_info entry %s", leaf, err, es[len(es)-1].ID)
	}
	if st := w.State(); st.SessionName != "named offline" {
		t.Errorf("pi sees name %q", st.SessionName)
	}
	// Now live: the write goes through pi.
	if err := s.SetSessionName(ctx, file, "named live"); err != nil {
		t.Fatal(err)
	}
	if err := w.CheckOutside(); err != nil || w.Stale() {
		t.Errorf("own write through pi flagged as outside: %v", err)
	}
}
