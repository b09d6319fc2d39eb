package index

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"piweb/internal/testkit"
)

// writeBig writes a session of about size bytes made of large tool results.
func writeBig(t testing.TB, dir string, size int) (string, string) {
	t.Helper()
	f, p := createSession(t, dir, "big")
	defer f.Close()
	fmt.Fprintln(f, hdr)
	f.WriteString(line("u0", "", "user", "read the big file", 0))
	chunk := strings.Repeat("0123456789abcdef ", 1<<20/17)
	parent := "u0"
	for i := 0; i*len(chunk) < size; i++ {
		id := fmt.Sprintf("r%d", i)
		fmt.Fprintf(f, `{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-01-02T03:04:05.000Z","message":{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":%q}],"isError":false,"timestamp":1}}`+"\n", id, parent, chunk)
		parent = id
	}
	return p, parent
}

// TestAppendReadsOnlyNewBytes is the proof that growth is incremental:
// after one entry is appended to a 100 MB file, the index reads the new
// entry plus the header line and the 64 bytes before the old end (the
// checks that the file was not rewritten), and nothing else.
func TestAppendReadsOnlyNewBytes(t *testing.T) {
	t.Parallel() // long under -race; shares nothing (TestFilterExact, which sets the tunables, is not parallel)
	dir := t.TempDir()
	p, leaf := writeBig(t, dir, 100<<20)
	ix := openTest(t, dir)
	syncAll(t, ix)
	entry := line("u1", leaf, "user", "one more question", 9)
	for _, how := range []string{"rescan", "event"} {
		testkit.AppendFile(t, p, entry)
		before := ix.BytesRead()
		if how == "rescan" {
			syncAll(t, ix)
		} else if err := ix.Update(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		got := ix.BytesRead() - before
		want := int64(len(entry) + len(hdr) + tailCheck)
		if got != want {
			t.Errorf("%s: read %d bytes after appending %d, want %d", how, got, len(entry), want)
		}
		entry = line("u2", "u1", "user", "and another", 10)
	}
	if got := search(t, ix, Query{Text: "another"}); !got["u2"] {
		t.Errorf("appended entry not searchable: %v", got)
	}
	checkList(t, ix, dir)
}
