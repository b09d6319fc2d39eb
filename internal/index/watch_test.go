package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"piweb/internal/testkit"
)

// waitEvent waits (with generous slack for loaded CI machines; the 250 ms
// target is measured by BenchmarkLiveAppend) for an event about path.
func waitEvent(t *testing.T, ch <-chan Event, path string) Event {
	t.Helper()
	return testkit.Await(t, ch, 10*time.Second, "event for "+path, func(ev Event) bool { return ev.Path == path })
}

func TestWatch(t *testing.T) {
	dir := t.TempDir()
	p := writeTree(t, dir)
	ix := openTest(t, dir)
	ix.o.Rescan = time.Hour // events only
	ch := watching(t, ix)
	waitEvent(t, ch, p) // the initial sync

	before, _ := os.Stat(p)
	grown := line("u9", "a3", "user", "grapefruit", 9) + line("a9", "u9", "assistant", "honeydew", 10)
	testkit.AppendFile(t, p, grown)
	ev := waitEvent(t, ch, p)
	if diff := cmp.Diff(Event{Path: p, SessionID: "s1", Appended: []string{"u9", "a9"}}, ev,
		cmpopts.IgnoreFields(Event{}, "From", "Lines", "End")); diff != "" {
		t.Errorf("append event (-want +got):\n%s", diff)
	}
	// The event carries the appended lines as the index read them, so no
	// other reader reads them again (issue 13.3).
	if string(ev.Lines) != grown || ev.From != before.Size() || ev.End != before.Size()+int64(len(grown)) {
		t.Errorf("appended lines %q from %d to %d, want %q from %d", ev.Lines, ev.From, ev.End, grown, before.Size())
	}
	if got := search(t, ix, Query{Text: "honeydew"}); !got["a9"] {
		t.Errorf("appended entry not searchable: %v", got)
	}

	// A project folder made after the watch started is watched too.
	proj := filepath.Join(dir, "sessions", "--new--")
	os.MkdirAll(proj, 0o755)
	q := filepath.Join(proj, "n.jsonl")
	os.WriteFile(q, []byte(hdr+"\n"), 0o644)
	waitEvent(t, ch, q)
	testkit.AppendFile(t, q, usr)
	testkit.AppendFile(t, q, "\n")
	for ev := waitEvent(t, ch, q); len(ev.Appended) == 0; ev = waitEvent(t, ch, q) {
	}
	checkList(t, ix, dir)

	os.Remove(q)
	if ev := waitEvent(t, ch, q); !ev.Removed {
		t.Errorf("remove event: %+v", ev)
	}
}

// TestRescan checks the fallback: with no file system events at all, the
// periodic stat rescan finds the change.
func TestRescan(t *testing.T) {
	dir := t.TempDir()
	p := writeTree(t, dir)
	ix := openTest(t, dir)
	syncAll(t, ix)
	sub := ix.Subscribe()
	ch, cancel := sub.C, sub.Close
	defer cancel()
	testkit.AppendFile(t, p, line("u9", "a3", "user", "grapefruit", 9))
	// What the rescan does on its tick.
	if st := syncAll(t, ix); st.Changed != 1 {
		t.Fatalf("rescan changed %d files", st.Changed)
	}
	if ev := waitEvent(t, ch, p); len(ev.Appended) != 1 || ev.Appended[0] != "u9" {
		t.Errorf("rescan event: %+v", ev)
	}
}

// watching subscribes to ix's events and runs its watcher until the test
// ends; the events come on the channel it returns.
func watching(tb testing.TB, ix *Index) <-chan Event {
	sub := ix.Subscribe()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- ix.Watch(ctx) }()
	tb.Cleanup(func() { stop(); <-done; sub.Close() })
	return sub.C
}
