package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/fakellm"
	"piweb/internal/testkit"
)

func entryLine(id, parent string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return fmt.Sprintf(`{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-12-02T10:00:00.000Z","message":{"role":"user","content":"x"}}`+"\n", id, p)
}

const hdrLine = `{"type":"session","version":3,"id":"u","timestamp":"2026-12-02T10:00:00.000Z","cwd":"/"}` + "\n"

func TestFileTracker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		initial string
		appends []string // one scan after each
		mode    scanMode
		want    []bool // outside after each scan
	}{
		{"own linear", hdrLine + entryLine("a", ""), []string{entryLine("b", "a"), entryLine("c", "b")}, scanChain, []bool{false, false}},
		{"new file flushed", "", []string{hdrLine + entryLine("a", "") + entryLine("b", "a")}, scanChain, []bool{false}},
		{"foreign branch", hdrLine + entryLine("a", "") + entryLine("b", "a"), []string{entryLine("x", "a"), entryLine("c", "b")}, scanChain, []bool{true, true}},
		{"foreign then own", hdrLine + entryLine("a", ""), []string{entryLine("x", "a") + entryLine("b", "a")}, scanChain, []bool{true}},
		{"idle: any line", hdrLine + entryLine("a", ""), []string{entryLine("b", "a")}, scanIdle, []bool{true}},
		{"second header", hdrLine + entryLine("a", ""), []string{hdrLine}, scanChain, []bool{true}},
		{"partial line waits", hdrLine + entryLine("a", ""), []string{strings.TrimSuffix(entryLine("x", "q"), "\n"), "\n"}, scanChain, []bool{false, true}},
		{"trusted branch", hdrLine + entryLine("a", "") + entryLine("b", "a"), []string{entryLine("s", "a")}, scanTrust, []bool{false}},
	}
	// Each case runs with the tracker reading the file itself (scan) and
	// fed the complete lines as the index reads them (feed, issue 13.3).
	for _, fed := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/fed=%v", tt.name, fed), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "s.jsonl")
				if tt.initial != "" {
					os.WriteFile(path, []byte(tt.initial), 0o644)
				}
				tr := newFileTracker(path, 0)
				read := int64(len(tt.initial)) // what the "index" has read
				for i, a := range tt.appends {
					f, _ := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
					f.WriteString(a)
					f.Close()
					if fed {
						b, _ := os.ReadFile(path)
						end := int64(strings.LastIndexByte(string(b), '\n') + 1)
						if _, ok := tr.feed(read, b[read:max(read, end)], tt.mode); !ok {
							t.Fatalf("append %d: lines from %d refused", i, read)
						}
						read = max(read, end)
					} else if _, err := tr.scan(tt.mode); err != nil {
						t.Fatal(err)
					}
					if got := tr.stale(); got != tt.want[i] {
						t.Errorf("after append %d: outside=%v, want %v", i, got, tt.want[i])
					}
				}
			})
		}
	}
}

// TestFileTrackerFeedGap: lines that do not continue what the tracker
// accounted for are refused, so the caller reads the file instead.
func TestFileTrackerFeedGap(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, []byte(hdrLine+entryLine("a", "")), 0o644)
	tr := newFileTracker(path, 0)
	gap := int64(len(hdrLine+entryLine("a", ""))) + 10
	if _, ok := tr.feed(gap, []byte(entryLine("b", "a")), scanIdle); ok || tr.stale() {
		t.Errorf("lines after a gap taken: ok=%v stale=%v", ok, tr.stale())
	}
}

func TestFileTrackerTruncated(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, []byte(hdrLine+entryLine("a", "")+entryLine("b", "a")), 0o644)
	tr := newFileTracker(path, 0)
	if tr.leaf != "b" {
		t.Fatalf("initial leaf %q", tr.leaf)
	}
	os.WriteFile(path, []byte(hdrLine), 0o644)
	if found, _ := tr.scan(scanChain); !found || !tr.stale() {
		t.Error("rewrite not noticed")
	}
}

func TestLastLineLong(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	long := `{"type":"message","id":"zz","pad":"` + strings.Repeat("p", 200<<10) + `"}` + "\n"
	os.WriteFile(path, []byte(hdrLine+long), 0o644)
	if tr := newFileTracker(path, 0); tr.leaf != "zz" || tr.size != int64(len(hdrLine+long)) {
		t.Errorf("leaf %q size %d", tr.leaf, tr.size)
	}
}

// TestLiveOutsideChange runs a second real pi on the same file, as a user
// in a terminal would.
func TestLiveOutsideChange(t *testing.T) {
	l := newLive(t, nil)
	l.turn("first", fakellm.Text("one"))
	file := l.w.Key()
	if err := l.w.CheckOutside(); err != nil || l.w.Stale() {
		t.Fatalf("own writes flagged: %v", err)
	}

	// The terminal pi appends to the same file.
	other, orec := l.start(func(o *Options) { o.SessionFile = file })
	l.llm.Enqueue(fakellm.Text("from the terminal"))
	other.Prompt(l.ctx, "terminal says hi", nil, "")
	orec.waitType(t, 0, EvAgentEnd)
	other.Close(context.Background(), 0)

	i := l.rec.waitType(t, 0, EvOutsideChange) // the supervisor's poll
	if got := fieldString(l.rec.snapshot()[i].Raw, "file"); got != file {
		t.Errorf("notice for %q", got)
	}
	if err := l.w.Prompt(l.ctx, "second", PromptOptions{}); !errors.Is(err, ErrStale) {
		t.Fatalf("prompt on stale leaf: %v, want ErrStale", err)
	}
	if err := l.w.Reload(l.ctx); err != nil {
		t.Fatal(err)
	}
	if l.w.Stale() || l.w.State().MessageCount-l.sys() != 4 {
		t.Errorf("after reload: stale=%v messages=%d, want 4", l.w.Stale(), l.w.State().MessageCount)
	}
	l.llm.Enqueue(fakellm.Text("two"))
	from := len(l.rec.snapshot())
	if err := l.w.Prompt(l.ctx, "second", PromptOptions{}); err != nil {
		t.Fatal(err)
	}
	l.rec.wait(t, from, isPhase(PhaseIdle))
	if req := l.llm.LastRequest(); !strings.Contains(fmt.Sprint(req.Messages), "from the terminal") {
		t.Error("reloaded pi did not see the terminal's messages")
	}
	if err := l.w.CheckOutside(); err != nil || l.w.Stale() {
		t.Errorf("after reload own writes flagged: %v", err)
	}
}

// TestLiveOutsideExpectLeaf is issue 14.1: after a terminal pi appended
// to the session, a prompt made on an older leaf is refused, and one made
// on the file's leaf as it is now is accepted: the worker reloads the file
// and pi answers with the terminal's entries in its context.
func TestLiveOutsideExpectLeaf(t *testing.T) { eachPi(t, testLiveOutsideExpectLeaf) }

func testLiveOutsideExpectLeaf(t *testing.T, r *rig) {
	l := r.live(r.supervisor(nil))
	l.turn("first", fakellm.Text("one"))
	file := l.w.Key()
	old := fileLeaf(file)
	other, orec := l.start(func(o *Options) { o.SessionFile = file })
	l.llm.Enqueue(fakellm.Text("from the terminal"))
	other.Prompt(l.ctx, "terminal says hi", nil, "")
	orec.waitType(t, 0, EvAgentEnd)
	other.Close(context.Background(), 0)
	now := fileLeaf(file)
	if now == old {
		t.Fatal("the terminal pi wrote nothing")
	}
	if err := l.w.Prompt(l.ctx, "on the old leaf", PromptOptions{ExpectLeaf: old}); !errors.Is(err, ErrStale) {
		t.Fatalf("prompt on the older leaf: %v, want ErrStale", err)
	}
	l.llm.Enqueue(fakellm.Text("two"))
	from := len(l.rec.snapshot())
	if err := l.w.Prompt(l.ctx, "on the file as it is", PromptOptions{ExpectLeaf: now}); err != nil {
		t.Fatalf("prompt on the current leaf: %v", err)
	}
	l.rec.wait(t, from, isPhase(PhaseIdle))
	if req := l.llm.LastRequest(); !strings.Contains(fmt.Sprint(req.Messages), "from the terminal") {
		t.Error("pi did not see the terminal's messages")
	}
	if u := messages(readEntries(t, file), "user"); u[len(u)-1].ParentID != now {
		t.Errorf("the prompt's parent is %s, want the file's leaf %s", u[len(u)-1].ParentID, now)
	}
	if err := l.w.CheckOutside(); err != nil || l.w.Stale() {
		t.Errorf("after the reload pi's own writes flagged: %v", err)
	}
}

// TestLiveOutsideAfterCompaction: an outside append right after a manual
// compaction (chaining from pi's compaction entry, as a terminal pi that
// opened the file since would) is a foreign change: the web app once showed
// no stale banner there.
func TestLiveOutsideAfterCompaction(t *testing.T) {
	l := newRig(t).twoTurnsToCompact()
	from := len(l.rec.snapshot())
	if err := l.w.Do(func(c *Client) error { _, err := c.Compact(l.ctx, ""); return err }); err != nil {
		t.Fatal(err)
	}
	file := l.w.Key()
	es := readEntries(t, file)
	if last := es[len(es)-1]; last.Type != "compaction" {
		t.Fatalf("last entry %+v, want the compaction", last)
	}
	testkit.AppendFile(t, file, fmt.Sprintf(`{"type":"session_info","id":"0badcafe","parentId":%q,"timestamp":"2026-12-02T16:00:00.000Z","name":"renamed in a terminal"}`+"\n", es[len(es)-1].ID))
	l.rec.waitType(t, from, EvOutsideChange)
	if err := l.w.Prompt(l.ctx, "third", PromptOptions{}); !errors.Is(err, ErrStale) {
		t.Errorf("prompt after the outside append: %v, want ErrStale", err)
	}
}
