package index

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"piweb/internal/testkit"
)

// TestWriteLockGivesUp: a writer waiting with a context gives up when it
// ends, and takes the lock once it is free.
func TestWriteLockGivesUp(t *testing.T) {
	l := newWriteLock()
	l.Lock()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := l.LockCtx(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("LockCtx on a held lock: %v, want the deadline", err)
	}
	l.Unlock()
	if err := l.LockCtx(context.Background()); err != nil {
		t.Fatalf("LockCtx on a free lock: %v", err)
	}
	l.Unlock()
}

// TestTextPassLetsWritersIn: a sync's text pass of a big file lets a
// writer that waits for the index (here the watcher's update of lines
// appended to that very file) in between its parts, instead of making it
// wait for the whole pass; the parts the append made stale are refused
// and read again, so the file's text ends complete, the appended line's
// included.
func TestTextPassLetsWritersIn(t *testing.T) {
	defer func(p int64) { textPart = p }(textPart)
	textPart = 700
	dir := t.TempDir()
	texts := make([]string, 60)
	for i := range texts {
		texts[i] = fmt.Sprintf("question number %d about part%d", i, i)
	}
	p := writeWords(t, dir, "big", texts...)
	ix := openTest(t, dir)
	updated := make(chan error, 1)
	parts := 0
	ix.afterPart = func() {
		if parts++; parts == 1 {
			testkit.AppendFile(t, p, line("late", "big"+string(rune('a'+59)), "user", "appended meanwhile latecomer", 1))
			go func() { updated <- ix.Update(context.Background(), p) }()
			testkit.Eventually(t, ix.wmu.Contended, 10*time.Second, "the update waiting for the writer")
			return
		}
		if parts == 2 {
			select {
			case err := <-updated:
				if err != nil {
					t.Errorf("update: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Error("the update did not get the writer between two text parts")
			}
		}
	}
	// The watcher's sync (listing first, then the text pass): a cold
	// Sync reads new files in one pass, which holds the writer as every
	// listing pass does.
	if _, err := ix.sync(context.Background(), true, false); err != nil {
		t.Fatal(err)
	}
	if parts < 3 {
		t.Fatalf("the text pass wrote %d parts; the test needs several", parts)
	}
	for _, q := range []string{"part0", "part59", "latecomer"} {
		if ids := hitIDs(t, ix, q); len(ids) != 1 {
			t.Errorf("search %q: %v, want one entry", q, ids)
		}
	}
	var behind int
	ix.db.QueryRow(`SELECT count(*) FROM files WHERE text_offset < offset`).Scan(&behind)
	if behind != 0 {
		t.Errorf("%d files' text behind after the pass", behind)
	}
}

// TestBigAppendLeavesTextToThePass: an update of more than a text part
// (a big append) writes the listing and its event without the text, so
// they do not wait for it; the next sync's text pass (which lets other
// writers in between its parts) brings search up to date.
func TestBigAppendLeavesTextToThePass(t *testing.T) {
	defer func(p int64) { textPart = p }(textPart)
	textPart = 700
	dir := t.TempDir()
	p := writeWords(t, dir, "grows", "a first question")
	ix := openTest(t, dir)
	syncAll(t, ix)
	var more strings.Builder
	parent := "growsa"
	for i := range 20 {
		id := fmt.Sprintf("more%d", i)
		more.WriteString(line(id, parent, "user", fmt.Sprintf("appended question %d bigappend", i), 1))
		parent = id
	}
	testkit.AppendFile(t, p, more.String())
	if err := ix.Update(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	var count int
	var behind bool
	ix.db.QueryRow(`SELECT msg_count, text_offset < offset FROM files WHERE path = ?`, p).Scan(&count, &behind)
	if count != 21 || !behind {
		t.Errorf("after the update: %d messages listed, text behind %v; want 21, true", count, behind)
	}
	if ids := hitIDs(t, ix, "bigappend"); len(ids) != 0 {
		t.Errorf("the update wrote text: %v", ids)
	}
	syncAll(t, ix)
	if ids := hitIDs(t, ix, "bigappend"); len(ids) != 20 {
		t.Errorf("after the text pass: %d hits, want 20", len(ids))
	}
}
